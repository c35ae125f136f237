package tensor_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// kernelInputs returns the buffers the kernels of the fusion report read,
// all together.
func kernelInputs(dev *tensor.Device) int {
	n := 0
	for _, k := range dev.FusionReport() {
		n += k.Inputs
	}
	return n
}

// residualStack is n pre-norm-style residual blocks over x: each adds a
// branch that reads the running sum (through a reduction) to it, so the sum
// and its gradient both have n+1 terms and several readers per block.
func residualStack(x, w *tensor.Tensor, n int) *tensor.Tensor {
	for range n {
		h := x.Sub(x.MeanKeepDim(-1)).Mul(w) // the sum is read twice per block
		x = x.Add(h.Tanh())
		_ = x.Realize() // the forward sums are stored, as a model would store them
	}
	return x
}

// TestBackwardStoresAccumulatedGradients checks that a gradient summed from
// several consumers is stored once rather than recomputed inside every
// kernel that reads it: through a stack of residual blocks the kernels' inputs
// stay bounded instead of growing with the depth.
func TestBackwardStoresAccumulatedGradients(t *testing.T) {
	dev := openCPU(t)
	reads := map[int]int{}
	for _, n := range []int{4, 16} {
		x := tensor.Randn(dev, 8, 32).SetRequiresGrad(true)
		w := tensor.Randn(dev, 32).SetRequiresGrad(true)
		y := residualStack(x, w, n)
		require.NoError(t, y.Realize())
		dev.SetFusionReport(true)
		require.NoError(t, y.Mul(y).Sum().Backward())
		require.NoError(t, tensor.Realize(x.Grad(), w.Grad()))
		dev.SetFusionReport(false)
		reads[n] = kernelInputs(dev)
	}
	// Linear growth gives 4 times the reads at 4 times the depth (a little
	// more for the constant part); recomputed sums gave 12 times (83 and 998).
	require.Less(t, reads[16], 6*reads[4], "kernel inputs at depths 4 and 16: %v", reads)
}

func TestMaterializeKeepsValueAndGradient(t *testing.T) {
	dev := openCPU(t)
	x := tensor.FromFloat32s(dev, []float32{1, 2, 3}, 3).SetRequiresGrad(true)
	y := x.Mul(x).AddScalar(1).Materialize()
	got, err := y.Float32s()
	require.NoError(t, err)
	require.Equal(t, []float32{2, 5, 10}, got)
	require.NoError(t, y.Sum().Backward())
	g, err := x.Grad().Float32s()
	require.NoError(t, err)
	require.Equal(t, []float32{2, 4, 6}, g)

	// A failure stays in the tensor and is returned where it is read.
	bad := tensor.FromFloat32s(dev, []float32{1, 2}, 2).IndexSelect(0, tensor.FromInt32s(dev, []int32{5}, 1)).Materialize()
	_, err = bad.Float32s()
	require.Error(t, err)
}
