package ref

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The references of the composed ops against PyTorch 1.13's values for
// seq(2, 3) = [[0 1 2] [3 4 5]].

func TestShapeOpReferences(t *testing.T) {
	a := seq(2, 3)
	assert.Equal(t, []float64{2, 1, 0, 5, 4, 3}, vals(Flip(a, 1)))
	assert.Equal(t, []float64{2, 0, 1, 5, 3, 4}, vals(Roll(a, []int{1}, []int{1})))
	assert.Equal(t, []float64{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}, vals(Repeat(a, 1, 2)))
	assert.Equal(t, []float64{2, 1, 0, 1, 2, 1, 5, 4, 3, 4, 5, 4}, vals(Pad(a, []int{2, 1}, "reflect", 0)))
	assert.Equal(t, []float64{0, 0, 1, 2, 2, 2, 3, 3, 4, 5, 5, 5}, vals(Pad(a, []int{1, 2}, "replicate", 0)))
	assert.Equal(t, []float64{9, 9, 9, 1, 2, 9, 4, 5, 9}, vals(Pad(a.Narrow(1, 1, 2), []int{0, 1, 1, 0}, "constant", 9)))
	assert.Equal(t, []float64{0, 0, 0, 3, 4, 0}, vals(Triangle(a, 0, true)))
	assert.Equal(t, []float64{0, 1, 2, 0, 0, 5}, vals(Triangle(a, 1, false)))
	assert.Equal(t, []float64{1, 5}, vals(Diagonal(a, 1, 0, 1)))
	assert.Equal(t, []float64{5, 14, 14, 50}, vals(Einsum("ij,kj->ik", a, a)))
}

func TestScanAndSortReferences(t *testing.T) {
	a := seq(2, 3)
	assert.Equal(t, []float64{0, 1, 3, 3, 7, 12}, vals(Scan(a, 1, func(s, x float64) float64 { return s + x })))
	lse := vals(LogSumExp(a, false, 1))
	assert.InDelta(t, 2.4076059, lse[0], 1e-6)
	assert.InDelta(t, 5.4076059, lse[1], 1e-6)
	n3 := vals(Norm(a, 3, false, 1))
	assert.InDelta(t, 2.0800838, n3[0], 1e-6)
	assert.InDelta(t, 6.0, n3[1], 1e-6)
	b := New([]float64{2, math.NaN(), 1, 2}, 1, 4)
	v, i := Sort(b, 1, false)
	require.True(t, math.IsNaN(vals(v)[3]))
	assert.Equal(t, []float64{1, 2, 2}, vals(v)[:3])
	assert.Equal(t, []float64{2, 0, 3, 1}, vals(i))
	_, i = Sort(b, 1, true)
	assert.Equal(t, []float64{1, 0, 3, 2}, vals(i))
	v, i = Median(New([]float64{3, 1, 2, 4}, 1, 4), 1)
	assert.Equal(t, []float64{2}, vals(v))
	assert.Equal(t, []float64{2}, vals(i))
	v, i = Median(b, 1)
	assert.True(t, math.IsNaN(vals(v)[0]))
	assert.Equal(t, []float64{1}, vals(i))
}
