//go:build !purego

package vec

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// bitsInputs returns 65536 inputs: evenly spaced bit patterns of every
// sign and exponent, the specials, values of the transcendentals' working
// ranges and random bit patterns.
func bitsInputs(t *testing.T) []float32 {
	r := newRand(t)
	xs := append([]float32(nil), specials...)
	for i := uint32(0); i < 1<<14; i++ {
		xs = append(xs, math.Float32frombits(i*0x3ffff+uint32(r.IntN(0x3ffff))))
	}
	for len(xs) < 3<<14 {
		xs = append(xs, randInput(r, 1, 40)...)
	}
	for len(xs) < 1<<16 {
		xs = append(xs, math.Float32frombits(r.Uint32()))
	}
	return xs
}

// TestNEONMatchesGoBits checks that every unary kernel at LevelNEON gives
// the Go level's bits (all NaNs alike) on every input: the NEON kernels are
// scalar.go's definitions step for step.
func TestNEONMatchesGoBits(t *testing.T) {
	xs := bitsInputs(t)
	want, got := make([]float32, len(xs)), make([]float32, len(xs))
	for _, op := range unaryOps() {
		prev := SetLevel(LevelGo)
		unary(op, want, xs)
		SetLevel(LevelNEON)
		unary(op, got, xs)
		SetLevel(prev)
		for i, x := range xs {
			require.True(t, sameBits(want[i], got[i]), "%v(%g = %#08x): neon %g (%#08x), go %g (%#08x)",
				op, x, math.Float32bits(x), got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}
