package device

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAttentionValidate(t *testing.T) {
	k := &AttentionKernel{Q: f32(2, 3, 5, 4), K: f32(2, 3, 7, 4), V: f32(2, 3, 7, 6), Causal: true,
		Out: f32(2, 3, 5, 6), LSE: f32(2, 3, 5)}
	require.NoError(t, k.Validate())
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		if k.Validate() != nil {
			panic("invalid")
		}
	}))
	bk := &AttentionKernel{Q: f32(5, 4), K: f32(7, 4), V: f32(7, 6), Out: f32(5, 6), LSE: f32(5)}
	require.NoError(t, bk.Validate(), "no batch dimensions")
	wide := k.K
	wide.Shape, wide.Strides = []int{2, 3, 7, 4}, []int{0, 28, 4, 1} // broadcast over the first batch dimension
	bad := *k
	bad.K = wide
	require.NoError(t, bad.Validate())
	heads := *k
	heads.Out.Strides = []int{90, 6, 18, 1} // [2, 5, 3, 6] viewed as [2, 3, 5, 6]
	require.NoError(t, heads.Validate(), "Out with its heads interleaved")

	var nilKernel *AttentionKernel
	require.ErrorContains(t, nilKernel.Validate(), "nil kernel")
	for what, edit := range map[string]func(k *AttentionKernel){
		"Q has dtype int32":                          func(k *AttentionKernel) { k.Q = Contiguous(fakeBuf(480), Int32, 0, []int{2, 3, 5, 4}) },
		"must have one rank":                         func(k *AttentionKernel) { k.V = f32(6, 7, 6) },
		"Q [5] must have rank at least 2":            func(k *AttentionKernel) { k.Q = f32(5) },
		"must be [B..., L, E], [B..., S, E]":         func(k *AttentionKernel) { k.K = f32(2, 3, 7, 5) },
		"and [B..., S, Ev]":                          func(k *AttentionKernel) { k.V = f32(2, 3, 8, 6) },
		"no keys":                                    func(k *AttentionKernel) { k.K, k.V = f32(2, 3, 0, 4), f32(2, 3, 0, 6) },
		"Scale NaN is not finite":                    func(k *AttentionKernel) { k.Scale = math.NaN() },
		"Out has shape [2 3 5 7], want [2 3 5 6]":    func(k *AttentionKernel) { k.Out = f32(2, 3, 5, 7) },
		"LSE has shape [2 3 5 1], want [2 3 5]":      func(k *AttentionKernel) { k.LSE = f32(2, 3, 5, 1) },
		"Out (shape [2 3 5 6], strides [90 30 1 5])": func(k *AttentionKernel) { k.Out.Strides = []int{90, 30, 1, 5} },
		"Out (shape [2 3 5 6], strides [60 6 18 1])": func(k *AttentionKernel) { k.Out.Strides = []int{60, 6, 18, 1} },
	} {
		bad := *k
		edit(&bad)
		require.ErrorContains(t, bad.Validate(), what)
	}
	bad = *k
	bad.Q.Offset = 1 // one element past the buffer's end
	require.Error(t, bad.Validate())
}

func TestAttentionBackwardValidate(t *testing.T) {
	k := &AttentionBackwardKernel{Q: f32(3, 5, 4), K: f32(3, 7, 4), V: f32(3, 7, 6),
		Out: f32(3, 5, 6), LSE: f32(3, 5), GradOut: f32(3, 5, 6), Scale: 0.5,
		GradQ: f32(3, 5, 4), GradK: f32(3, 7, 4), GradV: f32(3, 7, 6)}
	require.NoError(t, k.Validate())
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		if k.Validate() != nil {
			panic("invalid")
		}
	}))
	tr := k.GradOut
	tr.Shape, tr.Strides = []int{3, 5, 6}, []int{30, 1, 5} // a transposed gradient is read in place
	ok := *k
	ok.GradOut = tr
	require.NoError(t, ok.Validate())
	gapped := *k
	gapped.GradK = Contiguous(fakeBuf(4*105), Float32, 0, []int{3, 7, 4})
	gapped.GradK.Strides = []int{35, 5, 1} // rows with a gap, as when interleaved with others
	require.NoError(t, gapped.Validate())

	var nilKernel *AttentionBackwardKernel
	require.ErrorContains(t, nilKernel.Validate(), "nil kernel")
	for what, edit := range map[string]func(k *AttentionBackwardKernel){
		"K has dtype int32":                       func(k *AttentionBackwardKernel) { k.K = Contiguous(fakeBuf(336), Int32, 0, []int{3, 7, 4}) },
		"GradOut has shape [3 5 5], want [3 5 6]": func(k *AttentionBackwardKernel) { k.GradOut = f32(3, 5, 5) },
		"LSE has shape [3 4], want [3 5]":         func(k *AttentionBackwardKernel) { k.LSE = f32(3, 4) },
		"Out has shape [3 5 4], want [3 5 6]":     func(k *AttentionBackwardKernel) { k.Out = f32(3, 5, 4) },
		"GradK has shape [3 7 6], want [3 7 4]":   func(k *AttentionBackwardKernel) { k.GradK = f32(3, 7, 6) },
		"GradV (shape [3 7 6], strides [42 1 7])": func(k *AttentionBackwardKernel) { k.GradV.Strides = []int{42, 1, 7} },
		"GradQ (shape [3 5 4], strides [20 2 1])": func(k *AttentionBackwardKernel) { k.GradQ.Strides = []int{20, 2, 1} },
		"Scale +Inf is not finite":                func(k *AttentionBackwardKernel) { k.Scale = math.Inf(1) },
		"GradQ has dtype int32":                   func(k *AttentionBackwardKernel) { k.GradQ = Contiguous(fakeBuf(240), Int32, 0, []int{3, 5, 4}) },
	} {
		bad := *k
		edit(&bad)
		require.ErrorContains(t, bad.Validate(), what)
	}
}

// TestDenseAndDistinctRows checks View.IsDenseRows and View.HasDistinctRows
// on one table of layouts.
func TestDenseAndDistinctRows(t *testing.T) {
	v := func(shape, strides []int) View { return View{DType: Float32, Shape: shape, Strides: strides} }
	for _, c := range []struct {
		v               View
		dense, distinct bool
	}{
		{v([]int{2, 3, 5, 6}, []int{90, 30, 6, 1}), true, true},
		{v([]int{2, 3, 5, 6}, []int{90, 6, 18, 1}), true, true},   // heads interleaved
		{v([]int{2, 3, 5, 6}, []int{6, 12, 36, 1}), true, true},   // batch innermost
		{v([]int{2, 3, 5, 6}, []int{270, 6, 54, 1}), false, true}, // one of three interleaved [2, 5, 3, 3, 6] parts
		{v([]int{2, 3, 5, 6}, []int{160, 8, 32, 1}), false, true}, // rows with gaps
		{v([]int{2, 3, 5, 6}, []int{90, 6, 20, 1}), false, false}, // gapped rows, overlapping batches
		{v([]int{2, 3, 5, 6}, []int{90, 30, 1, 5}), false, false}, // rows not contiguous
		{v([]int{2, 3, 5, 6}, []int{60, 6, 18, 1}), false, false}, // overlapping batches
		{v([]int{2, 3, 5, 6}, []int{90, 5, 18, 1}), false, false}, // overlapping rows
		{v([]int{2, 3, 5, 6}, []int{0, 30, 6, 1}), false, false},  // broadcast: not one to one
		{v([]int{2, 1, 5, 6}, []int{30, 7, 6, 1}), true, true},    // a size-one dimension's stride is free
		{v([]int{2, 3, 0, 6}, []int{1, 1, 1, 1}), true, true},     // empty
		{v([]int{}, []int{}), true, true},
	} {
		assert.Equal(t, c.dense, c.v.IsDenseRows(), "dense: shape %v strides %v", c.v.Shape, c.v.Strides)
		assert.Equal(t, c.distinct, c.v.HasDistinctRows(), "distinct: shape %v strides %v", c.v.Shape, c.v.Strides)
	}
}
