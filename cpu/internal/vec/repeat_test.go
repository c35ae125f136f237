package vec

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRepeat checks Repeat at every level, bit for bit, for run lengths
// below, at and above each level's vector width and numbers of runs that
// leave the assembly all, some or none of them (the last runs, whose
// stores would reach past dst, run in Go), with NaN and signed-zero
// values, and that nothing past dst is touched.
func TestRepeat(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := newRand(t)
		for n := 1; n <= 40; n++ {
			for runs := range 7 {
				src := randInput(r, runs, 1e3)
				if runs > 1 {
					src[1] = float32(math.NaN())
					src[runs-1] = float32(math.Copysign(0, -1))
				}
				const guard = 20
				buf := make([]float32, runs*n+guard)
				for i := range buf {
					buf[i] = 7.5
				}
				Repeat(buf[:runs*n], src, n)
				for i := range runs * n {
					if math.Float32bits(src[i/n]) != math.Float32bits(buf[i]) {
						require.Equal(t, math.Float32bits(src[i/n]), math.Float32bits(buf[i]), "n=%d runs=%d element %d", n, runs, i)
					}
				}
				for i := runs * n; i < len(buf); i++ {
					if float32(7.5) != buf[i] {
						require.Equal(t, float32(7.5), buf[i], "n=%d runs=%d: element %d past dst written", n, runs, i)
					}
				}
			}
		}
		Repeat(nil, make([]float32, 3), 0)
		assert.Panics(t, func() { Repeat(make([]float32, 5), make([]float32, 2), 2) })
	})
}
