package tensor_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor"
)

// TestFusedAttentionIsOneKernel checks that attention without a mask
// tensor runs as one kernel forward and one backward on a device with the
// fused kernel (the CPU backend), stores no weights, stores its output so
// that joining the heads needs no copy, and matches the composed
// computation it replaces.
func TestFusedAttentionIsOneKernel(t *testing.T) {
	dev := openCPU(t)
	q := tensor.Randn(dev, 2, 3, 40, 16).SetRequiresGrad(true)
	k := tensor.Randn(dev, 2, 3, 50, 16).SetRequiresGrad(true)
	v := tensor.Randn(dev, 1, 3, 50, 8).SetRequiresGrad(true) // broadcast over the first batch dimension
	require.NoError(t, tensor.Realize(q, k, v))
	o := tensor.AttentionOptions{Causal: true, Scale: 0.3}
	dev.SetFusionReport(true)
	out := tensor.ScaledDotProductAttention(q, k, v, o)
	require.NoError(t, out.Realize())
	// The heads are stored interleaved: joining them is a view, not a copy.
	require.NoError(t, out.Permute(0, 2, 1, 3).Reshape(2, 40, 24).Realize())
	report := dev.FusionReport()
	dev.SetFusionReport(false)
	require.Len(t, report, 1, "%v", report)
	require.Equal(t, "attention", report[0].Kind)
	require.Equal(t, []int{2, 3, 40, 8}, out.Shape())

	g := tensor.Randn(dev, out.Shape()...)
	require.NoError(t, out.Mul(g).Sum().Backward())
	values := func(x *tensor.Tensor) []float32 {
		vals, err := x.Float32s()
		require.NoError(t, err)
		return vals
	}
	got := [][]float32{values(out), values(q.Grad()), values(k.Grad()), values(v.Grad())}
	for _, x := range []*tensor.Tensor{q, k, v} {
		x.ZeroGrad()
	}
	want := tensor.AttentionWeights(q, k, o).MatMul(v)
	require.NoError(t, want.Mul(g).Sum().Backward())
	wants := [][]float32{values(want), values(q.Grad()), values(k.Grad()), values(v.Grad())}
	for i, what := range []string{"output", "gradient of q", "gradient of k", "gradient of v"} {
		require.Len(t, got[i], len(wants[i]), what)
		for j, w := range wants[i] {
			require.InDelta(t, w, got[i][j], float64(1e-4*(1+abs32(w))), "%s: element %d", what, j)
		}
	}
}
