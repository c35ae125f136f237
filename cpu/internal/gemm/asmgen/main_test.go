package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGeneratedFilesFresh fails when the committed kernels differ from what
// the generator writes: run go generate in cpu/internal/gemm.
func TestGeneratedFilesFresh(t *testing.T) {
	asm, proto, err := Generate()
	require.NoError(t, err)
	for name, want := range map[string][]byte{"../kernels_amd64.s": asm, "../kernels_amd64.go": proto} {
		got, err := os.ReadFile(name)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%s is stale: run go generate ./cpu/internal/gemm", name)
	}
}
