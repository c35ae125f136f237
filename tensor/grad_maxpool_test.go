package tensor_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// TestMaxPoolGradientsOnPooledSide checks that the gradients of bias → ReLU
// → max pool are computed on the pooled side: the last kernel of the
// backward pass is the scatter (the pool kernel), neither a mask over the
// whole activation nor a bias sum over it, and the gradients equal the ones
// computed the ordinary way (a second, zero-weighted use of the ReLU output
// turns the rewrites off).
func TestMaxPoolGradientsOnPooledSide(t *testing.T) {
	dev := openCPU(t)
	x := make([]float32, 2*3*6*6)
	for i := range x {
		x[i] = float32((i*37)%23) - 11 // negative and positive, whole windows of negatives included
	}
	w := make([]float32, 2*3*3*3)
	for i := range w {
		w[i] = float32(i%5) - 1.5
	}
	grads := func(extraUse bool) (gx, gb []float32, kinds []string) {
		xt := tensor.FromFloat32s(dev, x, 2, 3, 6, 6).SetRequiresGrad(true)
		bt := tensor.FromFloat32s(dev, []float32{0.5, -0.25, 1}, 3, 1, 1).SetRequiresGrad(true)
		y := xt.Add(bt).Relu()
		loss := y.MaxPool2d(tensor.PoolOptions{Kernel: []int{2}}).Mul(tensor.FromFloat32s(dev, w, 2, 3, 3, 3)).Sum()
		if extraUse {
			loss = loss.Add(y.Sum().MulScalar(0))
		}
		require.NoError(t, tensor.Realize(loss))
		dev.ResetFusionStats()
		dev.SetFusionReport(true)
		defer dev.SetFusionReport(false)
		require.NoError(t, loss.Backward())
		require.NoError(t, tensor.Realize(bt.Grad())) // first: on the ordinary path it needs the scatter
		require.NoError(t, tensor.Realize(xt.Grad()))
		for _, k := range dev.FusionReport() {
			kinds = append(kinds, k.Kind)
		}
		var err error
		gx, err = xt.Grad().Float32s()
		require.NoError(t, err)
		gb, err = bt.Grad().Float32s()
		require.NoError(t, err)
		return gx, gb, kinds
	}
	gx, gb, kinds := grads(false)
	wantX, wantB, plainKinds := grads(true)
	require.Equal(t, wantX, gx)
	require.InDeltaSlice(t, wantB, gb, 1e-4) // summed in another order
	require.Equal(t, "pool", kinds[len(kinds)-1], "kernels of the backward pass: %v", kinds)
	require.NotEqual(t, "pool", plainKinds[len(plainKinds)-1], "kernels of the ordinary backward pass: %v", plainKinds)
}
