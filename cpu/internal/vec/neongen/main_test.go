package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/cpu/internal/neonasm"
)

// TestGeneratedFilesFresh fails when the committed kernels differ from what
// the generator writes: run go generate in cpu/internal/vec.
func TestGeneratedFilesFresh(t *testing.T) {
	asm, stubs, err := Generate("../coeffs.go")
	require.NoError(t, err)
	for name, want := range map[string][]byte{"../kernels_arm64.s": asm, "../stubs_arm64.go": stubs} {
		got, err := os.ReadFile(name)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%s is stale: run go generate ./cpu/internal/vec", name)
	}
}

// TestEncodingsMatchLLVM checks every NEON word of the kernels against
// llvm-mc, where it is installed.
func TestEncodingsMatchLLVM(t *testing.T) {
	mc := neonasm.LLVMMC()
	if mc == "" {
		t.Skip("llvm-mc is not installed")
	}
	asm, _, err := Generate("../coeffs.go")
	require.NoError(t, err)
	bad, err := neonasm.CheckWords(mc, asm)
	require.NoError(t, err)
	require.Empty(t, bad)
}
