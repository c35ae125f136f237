package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpsDocFresh keeps docs/ops.md equal to what the op table gives.
func TestOpsDocFresh(t *testing.T) {
	got, err := os.ReadFile("../../docs/ops.md")
	require.NoError(t, err)
	assert.Equal(t, string(render()), string(got), "docs/ops.md is stale: run go run ./tools/opsdoc")
}

// TestOpsDocRows checks a few rows the table implies.
func TestOpsDocRows(t *testing.T) {
	s := string(render())
	assert.Contains(t, s, "| `neg` | 1 | float32 or int32 | cheap | SIMD | `op_neg` (`op_neg_i`) |")
	assert.Contains(t, s, "| `floor` | 1 | float32 | cheap | Go | `op_floor` |")
	assert.Contains(t, s, "| `where` | 3 | bool ? T : T | cheap | SIMD | inline |")
}
