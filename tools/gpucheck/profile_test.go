package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor"
)

// TestProfileKernelsNamesTheKernels profiles a small row softmax on the
// Vulkan backend (lavapipe where there is no GPU), whose kernels carry
// device timestamps: the breakdown names each kernel with its count and
// mean time a run, then the runs' median time end to end.
func TestProfileKernelsNamesTheKernels(t *testing.T) {
	d, err := tensor.Open("vulkan")
	if err != nil {
		t.Skipf("vulkan unavailable: %v", err)
	}
	defer d.Close()
	if !d.Info().Features.Timestamps {
		t.Skip("the adapter has no timestamps")
	}
	c := benchCase{name: "softmax", setup: func(d *tensor.Device) []*tensor.Tensor {
		x := tensor.Rand(d, 64, 300)
		require.NoError(t, x.Realize())
		return []*tensor.Tensor{x}
	}, op: func(in []*tensor.Tensor) *tensor.Tensor { return in[0].Softmax(1) }}
	ks, err := profileKernels(d, c, c.setup(d))
	require.NoError(t, err)
	require.Regexp(t, `^[\w.]+ [0-9.]+x [0-9.]+ us(, [\w.]+ [0-9.]+x [0-9.]+ us)* \(runs [0-9.]+ us\)$`, ks)
	require.Contains(t, ks, "softmax") // the one-pass row kernel's span
	t.Log(ks)
}
