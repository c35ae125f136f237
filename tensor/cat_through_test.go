package tensor_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// TestCatReadsPendingCopiesInPlace checks that a Cat part that is a pending
// copy into contiguous order (a Reshape of permuted heads) is read from
// what it copies, without a kernel of its own, and that the values match
// the parts stored first; a part read again afterwards is still correct.
func TestCatReadsPendingCopiesInPlace(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Randn(dev, 2, 3, 4, 5) // [batch, heads, length, head size]
	y := tensor.Randn(dev, 2, 3, 4, 5)
	require.NoError(t, tensor.Realize(x, y))
	merge := func(h *tensor.Tensor) *tensor.Tensor { return h.Permute(0, 2, 1, 3).Reshape(2, 4, 15) }
	want := func(dim int) []float32 {
		a, b := merge(x), merge(y)
		require.NoError(t, tensor.Realize(a, b))
		v, err := tensor.Cat(dim, a, tensor.Zeros(dev, 2, 4, 15), b).Float32s()
		require.NoError(t, err)
		return v
	}
	for _, dim := range []int{0, 1, 2} {
		w := want(dim)
		dev.ResetFusionStats()
		dev.SetFusionReport(true)
		a, b := merge(x), merge(y)
		got, err := tensor.Cat(dim, a, tensor.Zeros(dev, 2, 4, 15), b).Float32s()
		dev.SetFusionReport(false)
		require.NoError(t, err)
		require.Equal(t, w, got, "dim %d", dim)
		for _, k := range dev.FusionReport() {
			require.NotContains(t, k.Ops, "cast", "dim %d: a part was stored before the copy: %v", dim, k)
		}
		// The copy stays pending for another reader.
		again, err := b.Float32s()
		require.NoError(t, err)
		ref, err := merge(y).Contiguous().MulScalar(1).Float32s()
		require.NoError(t, err)
		require.Equal(t, ref, again)
	}
	// Pending copies read whole (one transposed, one of a narrowed view,
	// reshaped) are read in place; a cast and a copy read in part are copied
	// the ordinary way.
	z := tensor.Randn(dev, 6, 4)
	parts := []*tensor.Tensor{
		z.T().Contiguous(),
		z.Narrow(1, 1, 2).Contiguous().Reshape(2, 6),
		z.T().Cast(tensor.Float16),
		z.T().Contiguous().Narrow(0, 1, 2),
	}
	got, err := tensor.Cat(0, parts...).Float32s()
	require.NoError(t, err)
	var wantAll []float32
	for _, p := range parts {
		v, err := p.Contiguous().Cast(tensor.Float32).Float32s()
		require.NoError(t, err)
		wantAll = append(wantAll, v...)
	}
	require.Len(t, got, len(wantAll))
	require.InDeltaSlice(t, f32s64(wantAll), f32s64(got), 1e-3)
}

func f32s64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
