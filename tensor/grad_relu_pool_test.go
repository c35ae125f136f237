package tensor_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// TestReluGradMaskedBeforeUnpooling checks that the gradient of ReLU → max
// pool is masked on the pooled side: the last kernel of the backward pass
// is the scatter (the pool kernel), not a mask over the whole activation,
// and the gradient equals the one computed the ordinary way (a second,
// zero-weighted use of the ReLU output turns the rewrite off).
func TestReluGradMaskedBeforeUnpooling(t *testing.T) {
	dev := openCPU(t)
	x := make([]float32, 2*3*6*6)
	for i := range x {
		x[i] = float32((i*37)%23) - 11 // negative and positive, whole windows of negatives included
	}
	w := make([]float32, 2*3*3*3)
	for i := range w {
		w[i] = float32(i%5) - 1.5
	}
	grad := func(extraUse bool) ([]float32, []string) {
		xt := tensor.FromFloat32s(dev, x, 2, 3, 6, 6).SetRequiresGrad(true)
		y := xt.Relu()
		loss := y.MaxPool2d(tensor.PoolOptions{Kernel: []int{2}}).Mul(tensor.FromFloat32s(dev, w, 2, 3, 3, 3)).Sum()
		if extraUse {
			loss = loss.Add(y.Sum().MulScalar(0))
		}
		require.NoError(t, tensor.Realize(loss))
		dev.ResetFusionStats()
		dev.SetFusionReport(true)
		defer dev.SetFusionReport(false)
		require.NoError(t, loss.Backward())
		g, err := xt.Grad().Float32s()
		require.NoError(t, err)
		var kinds []string
		for _, k := range dev.FusionReport() {
			kinds = append(kinds, k.Kind)
		}
		return g, kinds
	}
	got, kinds := grad(false)
	want, plainKinds := grad(true)
	require.Equal(t, want, got)
	require.NotEmpty(t, kinds)
	require.Equal(t, "pool", kinds[len(kinds)-1], "kernels of the backward pass: %v", kinds)
	require.NotEqual(t, "pool", plainKinds[len(plainKinds)-1], "kernels of the ordinary backward pass: %v", plainKinds)
}
