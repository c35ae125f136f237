package vec

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestArgInto checks ArgMaxInto and ArgMinInto at every level against the
// reduction's rule (a strictly better value, or a NaN over a number, takes
// the lane; ties, NaN over NaN and numbers over NaN keep it), and
// PoolMaxInto against max pooling's (a greater value or any NaN takes it;
// ties and numbers over NaN keep it), bit for bit with NaNs of distinct
// payloads,
// over lengths around each level's vector width (masked tails; Go on arm64), and
// that nothing past the slices is touched.
func TestArgInto(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := newRand(t)
		nan, nan2 := math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00002)
		specials := []float32{nan, nan2, 0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1))}
		rules := []struct {
			name  string
			f     func(best []float32, idx []int32, x []float32, row int32)
			beats func(v, b float32) bool
		}{
			{"ArgMaxInto", ArgMaxInto, func(v, b float32) bool { return v > b || v != v && b == b }},
			{"ArgMinInto", ArgMinInto, func(v, b float32) bool { return v < b || v != v && b == b }},
			{"PoolMaxInto", PoolMaxInto, func(v, b float32) bool { return v > b || v != v }},
		}
		for _, rule := range rules {
			f := rule.f
			for n := range 70 {
				best, x := randInput(r, n+1, 3), randInput(r, n+1, 3)
				idx := make([]int32, n+1)
				for i := range best {
					idx[i] = int32(r.IntN(100))
					if r.IntN(3) == 0 {
						best[i] = specials[r.IntN(len(specials))]
					}
					if r.IntN(3) == 0 {
						x[i] = specials[r.IntN(len(specials))]
					}
					if r.IntN(5) == 0 {
						x[i] = best[i]
					}
				}
				wantB, wantI := append([]float32(nil), best...), append([]int32(nil), idx...)
				for i := range n {
					v, b := x[i], best[i]
					if rule.beats(v, b) {
						wantB[i], wantI[i] = v, 1000
					}
				}
				f(best[:n], idx[:n], x[:n], 1000)
				for i := range n + 1 {
					if math.Float32bits(wantB[i]) != math.Float32bits(best[i]) {
						require.Equal(t, math.Float32bits(wantB[i]), math.Float32bits(best[i]), "%s n=%d element %d", rule.name, n, i)
					}
					if wantI[i] != idx[i] {
						require.Equal(t, wantI[i], idx[i], "%s n=%d element %d", rule.name, n, i)
					}
				}
			}
		}
		assert.Panics(t, func() { ArgMaxInto(make([]float32, 2), make([]int32, 3), make([]float32, 2), 0) })
		assert.Panics(t, func() { PoolMaxInto(make([]float32, 3), make([]int32, 3), make([]float32, 2), 0) })
	})
}
