package tensor_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor"
)

// TestFoldedProductEpilogue checks that a product folded over a batch (a
// layer's weight applied to [batch, length, features]) takes the
// elementwise consumer that reads it in the batch's shape as its epilogue
// (bias and residual: one kernel), that a consumer whose other inputs
// cannot be viewed in the product's shape still gets the right values
// (computed without the epilogue), and that both match the computation
// with fusion off.
func TestFoldedProductEpilogue(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Randn(dev, 3, 5, 7)
	w := tensor.Randn(dev, 9, 7)
	b := tensor.Randn(dev, 9)
	r := tensor.Randn(dev, 3, 5, 9)
	rt := tensor.Randn(dev, 5, 3, 9).Permute(1, 0, 2) // [3, 5, 9] whose rows cannot be flattened
	require.NoError(t, tensor.Realize(x, w, b, r, rt))
	for _, c := range []struct {
		name    string
		res     *tensor.Tensor
		kernels int
	}{{"residual", r, 1}, {"permuted residual", rt, 2}} {
		compute := func() ([]float32, []tensor.KernelReport) {
			dev.SetFusionReport(true)
			defer dev.SetFusionReport(false)
			dev.ResetFusionStats()
			y := c.res.Add(x.MatMul(w.T()).Add(b))
			vals, err := y.Float32s()
			require.NoError(t, err)
			return vals, dev.FusionReport()
		}
		got, report := compute()
		require.Len(t, report, c.kernels, "%s: %v", c.name, report)
		require.Equal(t, "matmul", report[0].Kind, c.name)
		if c.kernels == 1 {
			require.Equal(t, []string{"matmul", "add", "add"}, report[0].Ops, c.name)
		}
		prev := tensor.SetFusion(false)
		want, _ := compute()
		tensor.SetFusion(prev)
		require.InDeltaSlice(t, want, got, 1e-4, c.name)
	}
}
