package tensor_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor"
)

// TestCatOfAdjacentViewsIsAView checks that concatenating views of one
// tensor that lie next to each other along the dimension (heads
// interleaved in one array) launches no kernel and gives the parts'
// values, that other orders still copy, and that parts which record
// gradients keep Cat's gradient.
func TestCatOfAdjacentViewsIsAView(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Randn(dev, 3, 4, 12)
	require.NoError(t, x.Realize())
	parts := []*tensor.Tensor{x.Narrow(2, 0, 4), x.Narrow(2, 4, 5), x.Narrow(2, 9, 3)}
	want, err := x.Float32s()
	require.NoError(t, err)

	dev.SetFusionReport(true)
	dev.ResetFusionStats()
	y := tensor.Cat(2, parts...)
	require.NoError(t, y.Realize())
	require.Empty(t, dev.FusionReport(), "adjacent parts need no kernel")
	got, err := y.Float32s()
	require.NoError(t, err)
	require.Equal(t, want, got)

	// Out of order, or with a gap, the parts are copied.
	for _, ps := range [][]*tensor.Tensor{
		{parts[1], parts[0], parts[2]},
		{parts[0], parts[2]},
	} {
		dev.ResetFusionStats()
		z := tensor.Cat(2, ps...)
		require.NoError(t, z.Realize())
		require.NotEmpty(t, dev.FusionReport())
		w := tensor.Cat(2, ps[0].Contiguous(), ps[1].Contiguous())
		if len(ps) == 3 {
			w = tensor.Cat(2, ps[0].Contiguous(), ps[1].Contiguous(), ps[2].Contiguous())
		}
		requireSameValues(t, w, z)
	}
	dev.SetFusionReport(false)

	// Parts that record gradients: Cat's rule gives each its share.
	xg := x.Detach().SetRequiresGrad(true)
	gp := []*tensor.Tensor{xg.Narrow(2, 0, 4), xg.Narrow(2, 4, 8)}
	require.NoError(t, tensor.Cat(2, gp...).Mul(x).Sum().Backward())
	requireSameValues(t, x, xg.Grad())
}

// requireSameValues checks that a and b hold the same float32 values.
func requireSameValues(t *testing.T, a, b *tensor.Tensor) {
	t.Helper()
	av, err := a.Float32s()
	require.NoError(t, err)
	bv, err := b.Float32s()
	require.NoError(t, err)
	require.Equal(t, av, bv)
}
