package device

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSoftmaxValidate(t *testing.T) {
	in := f32(4, 6)
	k := &SoftmaxKernel{In: in, Out: f32(4, 6), Log: true}
	require.NoError(t, k.Validate())
	tr := in
	tr.Shape, tr.Strides = []int{6, 4}, []int{1, 6} // a transposed view reads the same elements
	require.NoError(t, (&SoftmaxKernel{In: tr, Out: f32(6, 4)}).Validate())
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		if k.Validate() != nil {
			panic("invalid")
		}
	}))

	var nilKernel *SoftmaxKernel
	require.ErrorContains(t, nilKernel.Validate(), "nil kernel")
	bad := *k
	bad.In = Contiguous(fakeBuf(96), Int32, 0, []int{4, 6})
	require.ErrorContains(t, bad.Validate(), "In has dtype int32")
	bad = *k
	bad.In, bad.Out = f32(4, 0), f32(4, 0)
	require.ErrorContains(t, bad.Validate(), "last dimension must be non-empty")
	bad = *k
	bad.In, bad.Out = Contiguous(fakeBuf(4), Float32, 0, nil), Contiguous(fakeBuf(4), Float32, 0, nil)
	require.ErrorContains(t, bad.Validate(), "no rows")
	bad = *k
	bad.Out = f32(4, 5)
	require.ErrorContains(t, bad.Validate(), "Out has shape [4 5], want [4 6]")
	bad = *k
	bad.Out.Strides = []int{1, 4} // column-major storage of a 4x6 result
	require.ErrorContains(t, bad.Validate(), "not contiguous")
	bad = *k
	bad.In.Offset = 1 // one element past the buffer's end
	require.Error(t, bad.Validate())
}

func TestSoftmaxBackwardValidate(t *testing.T) {
	k := &SoftmaxBackwardKernel{Y: f32(4, 6), G: f32(4, 6), Out: f32(4, 6)}
	require.NoError(t, k.Validate())
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		if k.Validate() != nil {
			panic("invalid")
		}
	}))
	var nilKernel *SoftmaxBackwardKernel
	require.ErrorContains(t, nilKernel.Validate(), "nil kernel")
	bad := *k
	bad.G = f32(4, 5)
	require.ErrorContains(t, bad.Validate(), "G has shape [4 5], want [4 6]")
	bad = *k
	bad.G = Contiguous(fakeBuf(96), Int32, 0, []int{4, 6})
	require.ErrorContains(t, bad.Validate(), "G has dtype int32")
	bad = *k
	bad.Y, bad.G, bad.Out = f32(4, 0), f32(4, 0), f32(4, 0)
	require.ErrorContains(t, bad.Validate(), "last dimension must be non-empty")
	bad = *k
	bad.Out.Strides = []int{1, 4}
	require.ErrorContains(t, bad.Validate(), "not contiguous")
	bad = *k
	bad.Y.Offset = 1
	require.Error(t, bad.Validate())
}

func TestNormalizeValidate(t *testing.T) {
	k := &NormalizeKernel{In: f32(4, 6), Out: f32(4, 6), Eps: 1e-5}
	require.NoError(t, k.Validate())
	b := &NormalizeBackwardKernel{X: f32(4, 6), G: f32(4, 6), Out: f32(4, 6)}
	require.NoError(t, b.Validate())
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		if k.Validate() != nil || b.Validate() != nil {
			panic("invalid")
		}
	}))
	var nk *NormalizeKernel
	require.ErrorContains(t, nk.Validate(), "nil kernel")
	var nb *NormalizeBackwardKernel
	require.ErrorContains(t, nb.Validate(), "nil kernel")
	for _, eps := range []float64{-1, math.NaN(), math.Inf(1)} {
		bad := *k
		bad.Eps = eps
		require.ErrorContains(t, bad.Validate(), "must be finite and non-negative")
		badB := *b
		badB.Eps = eps
		require.ErrorContains(t, badB.Validate(), "must be finite and non-negative")
	}
	bad := *k
	bad.In, bad.Out = f32(3, 0), f32(3, 0)
	require.ErrorContains(t, bad.Validate(), "last dimension must be non-empty")
	bad = *k
	bad.Out = f32(6, 4)
	require.ErrorContains(t, bad.Validate(), "Out has shape [6 4], want [4 6]")
	badB := *b
	badB.G = f32(4, 5)
	require.ErrorContains(t, badB.Validate(), "G has shape [4 5], want [4 6]")
	badB = *b
	badB.X = Contiguous(fakeBuf(96), Int32, 0, []int{4, 6})
	require.ErrorContains(t, badB.Validate(), "X has dtype int32")
	badB = *b
	badB.Out.Strides = []int{1, 4}
	require.ErrorContains(t, badB.Validate(), "not contiguous")
}
