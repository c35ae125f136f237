package tensor

import (
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// addr evaluates a view at a multi-index.
func addr(v view, idx []int) int {
	a := v.offset
	for i, x := range idx {
		a += x * v.strides[i]
	}
	return a
}

func unravel(p int, shape []int) []int {
	idx := make([]int, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		idx[i] = p % shape[i]
		p /= shape[i]
	}
	return idx
}

// checkCompose verifies compose against element-by-element evaluation.
func checkCompose(t *testing.T, outer view, p []int, inner view) bool {
	t.Helper()
	got, ok := compose(outer, p, inner)
	if !ok {
		return false
	}
	for q := range device.NumElements(outer.shape) {
		idx := unravel(q, outer.shape)
		lin := addr(outer, idx)
		want := addr(inner, unravel(lin, p))
		require.Equal(t, want, addr(got, idx), "outer %+v p %v inner %+v at %v", outer, p, inner, idx)
	}
	return true
}

func TestComposePermuteSliceBroadcast(t *testing.T) {
	p := []int{4, 6}
	inner := view{shape: p, strides: []int{1, 4}, offset: 3} // a transposed source
	// transpose of p
	require.True(t, checkCompose(t, view{shape: []int{6, 4}, strides: []int{1, 6}}, p, inner))
	// slice rows 1..3, every other column
	require.True(t, checkCompose(t, view{shape: []int{2, 3}, strides: []int{6, 2}, offset: 7}, p, inner))
	// broadcast a new leading dim
	require.True(t, checkCompose(t, view{shape: []int{5, 4, 6}, strides: []int{0, 6, 1}}, p, inner))
	// reshape splitting a dimension
	require.True(t, checkCompose(t, view{shape: []int{4, 2, 3}, strides: []int{6, 3, 1}}, p, inner))
}

func TestComposeRefusesMergingSeparatedDims(t *testing.T) {
	p := []int{4, 6}
	inner := view{shape: p, strides: []int{1, 4}} // transposed: rows not contiguous
	flat := view{shape: []int{24}, strides: []int{1}}
	require.False(t, checkCompose(t, flat, p, inner))
	// but a contiguous inner merges fine
	require.True(t, checkCompose(t, flat, p, view{shape: p, strides: []int{6, 1}, offset: 2}))
}

func TestComposeRandomViews(t *testing.T) {
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 1))
	t.Logf("seed %d", seed)
	hits := 0
	for range 500 {
		p := []int{1 + r.IntN(4), 1 + r.IntN(4), 1 + r.IntN(4)}
		inner := view{shape: p, strides: []int{r.IntN(30), r.IntN(30), r.IntN(30)}, offset: r.IntN(5)}
		// outer: a random permutation with random slicing of p
		perm := r.Perm(3)
		outer := view{shape: make([]int, 3), strides: make([]int, 3)}
		cs := device.ContiguousStrides(p)
		for i, d := range perm {
			start := r.IntN(p[d])
			outer.shape[i] = 1 + r.IntN(p[d]-start)
			outer.strides[i] = cs[d]
			outer.offset += start * cs[d]
		}
		if checkCompose(t, outer, p, inner) {
			hits++
		}
	}
	require.Greater(t, hits, 400, "permute+slice views should almost always compose")
}

func TestReshapeStrides(t *testing.T) {
	st, ok := reshapeStrides([]int{2, 3, 4}, []int{12, 4, 1}, []int{6, 4})
	require.True(t, ok)
	require.Equal(t, []int{4, 1}, st)
	_, ok = reshapeStrides([]int{3, 2}, []int{1, 3}, []int{6}) // transposed
	require.False(t, ok)
	st, ok = reshapeStrides([]int{3, 2}, []int{1, 3}, []int{3, 1, 2})
	require.True(t, ok)
	require.Equal(t, []int{1, 0, 3}, st)
	st, ok = reshapeStrides([]int{4, 6}, []int{6, 1}, []int{2, 2, 3, 2})
	require.True(t, ok)
	require.Equal(t, []int{12, 6, 2, 1}, st)
}
