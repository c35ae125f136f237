package tensor_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// TestDeepChainBackward runs Backward through a chain of a million
// AddScalar from a leaf, deeper than a recursive graph walk should be trusted
// with; each step has derivative one, so the leaf's gradient is all ones.
func TestDeepChainBackward(t *testing.T) {
	if testing.Short() {
		t.Skip("a million-node backward pass takes about ten seconds")
	}
	dev := openCPU(t)
	w := tensor.Zeros(dev, 2).SetRequiresGrad(true)
	x := w
	for range 1_000_000 {
		x = x.AddScalar(1)
	}
	require.NoError(t, x.Sum().Backward())
	g, err := w.Grad().Float32s()
	require.NoError(t, err)
	require.Equal(t, []float32{1, 1}, g)
}
