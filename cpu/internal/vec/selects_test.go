package vec

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompare checks every comparison, vector and scalar forms, against
// CmpOp.holds (device.Compare's semantics) on inputs with specials and
// many equal pairs, at every length of testLengths.
func TestCompare(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range testLengths {
			a, b := randInput(r, n, 4), randInput(r, n, 4)
			for i := range b {
				if r.IntN(3) == 0 {
					b[i] = a[i] // equal pairs
				}
			}
			for op := range numCmp {
				got := make([]uint8, n)
				for i := range got {
					got[i] = 0xa5 // poison
				}
				Compare(op, got, a, b)
				for i := range got {
					if b2u8(op.holds(a[i], b[i])) != got[i] {
						require.Equal(t, b2u8(op.holds(a[i], b[i])), got[i], "%d: %g op%d %g (n=%d)", i, a[i], op, b[i], n)
					}
					if op.holds(a[i], b[i]) != op.Swap().holds(b[i], a[i]) {
						require.Equal(t, op.holds(a[i], b[i]), op.Swap().holds(b[i], a[i]))
					}
				}
				for _, s := range []float32{0, -1.5, 3, float32(math.NaN()), float32(math.Inf(-1))} {
					CompareScalar(op, got, a, s)
					for i := range got {
						if b2u8(op.holds(a[i], s)) != got[i] {
							require.Equal(t, b2u8(op.holds(a[i], s)), got[i], "%d: %g op%d %g (n=%d)", i, a[i], op, s, n)
						}
					}
				}
			}
		}
	})
}

// TestSelect checks the three selections bit for bit (NaN payloads and
// signed zeros included), with condition bytes other than 0 and 1, and in
// place.
func TestSelect(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range testLengths {
			a, b := randInput(r, n, 4), randInput(r, n, 4)
			c := make([]uint8, n)
			for i := range c {
				c[i] = []uint8{0, 1, 0x80, 0xff}[r.IntN(4)]
			}
			bits := func(v []float32) []uint32 {
				u := make([]uint32, len(v))
				for i, x := range v {
					u[i] = math.Float32bits(x)
				}
				return u
			}
			pick := func(ci uint8, x, y float32) float32 {
				if ci != 0 {
					return x
				}
				return y
			}
			s := float32(math.Copysign(0, -1))
			want, want2, want3 := make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range want {
				want[i], want2[i], want3[i] = pick(c[i], a[i], b[i]), pick(c[i], a[i], s), pick(c[i], s, b[i])
			}
			got := make([]float32, n)
			Select(got, c, a, b)
			require.Equal(t, bits(want), bits(got), "Select n=%d", n)
			SelectElse(got, c, a, s)
			require.Equal(t, bits(want2), bits(got), "SelectElse n=%d", n)
			SelectThen(got, c, s, b)
			require.Equal(t, bits(want3), bits(got), "SelectThen n=%d", n)
			inPlace := append([]float32(nil), a...)
			Select(inPlace, c, inPlace, b)
			require.Equal(t, bits(want), bits(inPlace), "Select in place n=%d", n)
		}
	})
	require.Panics(t, func() { Select(make([]float32, 3), make([]uint8, 2), make([]float32, 3), make([]float32, 3)) })
	require.Panics(t, func() { Compare(CmpLt, make([]uint8, 3), make([]float32, 3), make([]float32, 4)) })
}
