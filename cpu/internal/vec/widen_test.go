package vec

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAddWidened checks dst[i] += float64(src[i]) at every level, bit for
// bit against the scalar sum, over lengths around each level's step (the
// tails run in Go) with infinities, NaNs, signed zeros and subnormals mixed
// in, and that nothing past the slices is touched.
func TestAddWidened(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := newRand(t)
		specials := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0, float32(math.Copysign(0, -1)), 1e-45, -3e-39}
		for n := range 70 {
			src := randInput(r, n+1, 1e3)
			dst := make([]float64, n+1)
			for i := range dst {
				dst[i] = r.NormFloat64() * 1e6
				if r.IntN(9) == 0 {
					src[i] = specials[r.IntN(len(specials))]
				}
			}
			want := append([]float64(nil), dst...)
			for i := range n {
				want[i] += float64(src[i])
			}
			AddWidened(dst[:n], src[:n])
			for i := range n + 1 {
				if math.Float64bits(want[i]) != math.Float64bits(dst[i]) {
					require.Equal(t, math.Float64bits(want[i]), math.Float64bits(dst[i]), "n=%d element %d: got %v, want %v", n, i, dst[i], want[i])
				}
			}
		}
		assert.PanicsWithValue(t, "vec.AddWidened: slices of unequal length (dst, src = [2 3])", func() { AddWidened(make([]float64, 2), make([]float32, 3)) })
	})
}
