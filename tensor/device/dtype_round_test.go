package device

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFloat64ToHalfRoundsOnce checks Float64ToFloat16 and Float64ToBFloat16
// against the nearer of the two neighbours (ties to even) for values at,
// just off and between midpoints, across binades, subnormals and overflow.
func TestFloat64ToHalfRoundsOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name    string
		convert func(float64) uint16
		back    func(uint16) float32
		top     uint16 // the largest finite positive value's bits
	}{
		{"float16", Float64ToFloat16, Float16ToFloat32, 0x7bff},
		{"bfloat16", Float64ToBFloat16, BFloat16ToFloat32, 0x7f7f},
	} {
		for range 20000 {
			h := uint16(r.IntN(int(c.top))) // a finite non-negative value and the next one up
			lo, hi := float64(c.back(h)), float64(c.back(h+1))
			mid := lo + (hi-lo)/2
			for _, x := range []float64{mid, mid * (1 + 0x1p-40), mid * (1 - 0x1p-40), lo + (hi-lo)*r.Float64()} {
				want := h
				if x-lo > hi-x || x-lo == hi-x && h&1 == 1 {
					want = h + 1
				}
				for _, sign := range []float64{1, -1} {
					got := c.convert(sign * x)
					if sign < 0 {
						want |= 0x8000
					}
					require.Equal(t, want, got, "%s(%v): lo %v hi %v", c.name, sign*x, lo, hi)
				}
			}
		}
	}
}
