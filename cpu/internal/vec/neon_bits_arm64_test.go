//go:build !purego

package vec

import (
	"fmt"
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

// atLevels returns f's results at LevelGo and LevelNEON.
func atLevels[T any](f func() T) (goRes, neon T) {
	prev := SetLevel(LevelGo)
	defer SetLevel(prev)
	goRes = f()
	SetLevel(LevelNEON)
	return goRes, f()
}

// requireSameBits fails unless a and b hold the same bits (all NaNs alike).
func requireSameBits(t *testing.T, a, b []float32, msg string) {
	t.Helper()
	require.Equal(t, len(a), len(b), msg)
	for i := range a {
		require.True(t, sameBits(a[i], b[i]), "%s at %d: go %g (%#08x), neon %g (%#08x)",
			msg, i, a[i], math.Float32bits(a[i]), b[i], math.Float32bits(b[i]))
	}
}

// TestNEONWindowKernelsMatchGoBits checks max pooling (with and without
// indices) and its backward (valid and invalid indices), col2im, the direct 3×3 convolution and block addition at LevelNEON against the Go level bit
// for bit, on inputs with ties, signed zeros, NaNs and infinities, at
// widths covering every tail.
func TestNEONWindowKernelsMatchGoBits(t *testing.T) {
	r := newRand(t)
	for ow := 1; ow <= 21; ow++ {
		for _, oh := range []int{1, 2, 5} {
			iw := 2*ow + r.IntN(2)
			ldx := iw + r.IntN(3)
			x := poolInput(r, (2*oh-1)*ldx+2*ow)
			type res struct {
				out, outNoIdx []float32
				idx           []int32
			}
			g, n := atLevels(func() res {
				out, idx, out2 := poison(oh*ow), make([]int32, oh*ow), poison(oh*ow)
				MaxPool2x2(out, idx, x, ldx, iw, oh, ow)
				MaxPool2x2(out2, nil, x, ldx, iw, oh, ow)
				return res{out, out2, idx}
			})
			msg := fmt.Sprintf("maxpool %dx%d", oh, ow)
			requireSameBits(t, g.out, n.out, msg)
			requireSameBits(t, g.outNoIdx, n.outNoIdx, msg+" without indices")
			require.Equal(t, g.idx, n.idx, msg)

			dy := randInput(r, oh*ow, 4)
			bad := append([]int32(nil), g.idx...)
			q := r.IntN(oh * ow)
			bad[q] = []int32{-1, bad[q] + 2, bad[q] + int32(2*iw), bad[q] - 1, 1 << 30}[r.IntN(5)]
			for _, idx := range [][]int32{g.idx, bad} {
				type unpooled struct {
					dx []float32
					ok bool
				}
				gu, nu := atLevels(func() unpooled {
					dx := poison(2 * oh * ldx)
					ok := MaxUnpool2x2(dx, dy, idx, ldx, iw, oh, ow)
					return unpooled{dx, ok}
				})
				require.Equal(t, gu.ok, nu.ok, "%s unpool of %v", msg, idx)
				if gu.ok {
					requireSameBits(t, gu.dx, nu.dx, msg+" unpool")
				}
			}
		}
	}
	for _, sh := range [][2]int{{1, 1}, {2, 5}, {3, 6}, {1, 7}, {4, 9}, {3, 10}, {5, 13}, {2, 17}, {7, 26}, {3, 47}} {
		oh, ow := sh[0], sh[1]
		ts := oh*ow + r.IntN(4)
		col := randInput(r, 8*ts+oh*ow, 4)
		ldx := ow + 2 + r.IntN(3)
		g, n := atLevels(func() []float32 {
			dx := poison((oh+1)*ldx + ow + 2)
			Col2Im3x3(dx, ldx, col, ts, oh, ow)
			return dx
		})
		requireSameBits(t, g, n, fmt.Sprintf("col2im %dx%d", oh, ow))
	}
	for _, sh := range [][2]int{{1, 1}, {3, 4}, {2, 5}, {4, 7}, {5, 8}, {3, 13}, {6, 26}, {2, 33}} {
		rows, cols := sh[0], sh[1]
		ldx, ldy := cols+2+r.IntN(3), cols+r.IntN(3)
		x := randInput(r, (rows+1)*ldx+cols+2, 4)
		w := randInput(r, 9, 2)
		y0 := randInput(r, (rows-1)*ldy+cols, 4)
		for _, acc := range []bool{false, true} {
			g, n := atLevels(func() []float32 {
				y := append([]float32(nil), y0...)
				Conv3x3(y, ldy, x, ldx, w, rows, cols, acc)
				return y
			})
			requireSameBits(t, g, n, fmt.Sprintf("conv %dx%d acc %v", rows, cols, acc))
		}
	}
	for _, cols := range []int{1, 3, 4, 5, 15, 16, 17, 33, 70} {
		blocks, rows := 1+r.IntN(3), 1+r.IntN(3)
		ldd, lds := cols+r.IntN(3), cols+r.IntN(3)
		bd, bs := rows*ldd+r.IntN(3), rows*lds+r.IntN(3)
		src := randInput(r, (blocks-1)*bs+(rows-1)*lds+cols, 4)
		dst0 := randInput(r, (blocks-1)*bd+(rows-1)*ldd+cols+2, 4)
		g, n := atLevels(func() []float32 {
			dst := append([]float32(nil), dst0...)
			AddBlocks(dst, ldd, bd, src, lds, bs, blocks, rows, cols)
			return dst
		})
		requireSameBits(t, g, n, fmt.Sprintf("addblocks %dx%dx%d", blocks, rows, cols))
	}
}

// TestNEONSelectsMatchGo checks the comparisons (both forms, NaNs, signed
// zeros and infinities among the operands) and the selections (any
// non-zero byte selecting) at LevelNEON against the Go level, at lengths
// covering the 16-element blocks' tails.
func TestNEONSelectsMatchGo(t *testing.T) {
	r := newRand(t)
	xs := bitsInputs(t)
	for _, n := range []int{1, 15, 16, 17, 40, 1000} {
		a, b := randInput(r, n, 3), randInput(r, n, 3)
		for i := range a {
			if r.IntN(4) == 0 {
				b[i] = a[i] // ties
			}
			if r.IntN(8) == 0 {
				a[i] = xs[r.IntN(len(xs))]
			}
		}
		s := b[0]
		c := make([]uint8, n)
		for i := range c {
			c[i] = []uint8{0, 1, 2, 0x80, 0xff}[r.IntN(5)]
		}
		for op := range numCmp {
			type res struct{ vv, vs []uint8 }
			g, nn := atLevels(func() res {
				vv, vs := make([]uint8, n), make([]uint8, n)
				Compare(op, vv, a, b)
				CompareScalar(op, vs, a, s)
				return res{vv, vs}
			})
			require.Equal(t, g, nn, "compare %d, n %d", op, n)
		}
		type sels struct{ sel, els, then []float32 }
		g, nn := atLevels(func() sels {
			r := sels{poison(n), poison(n), poison(n)}
			Select(r.sel, c, a, b)
			SelectElse(r.els, c, a, s)
			SelectThen(r.then, c, s, b)
			return r
		})
		for _, p := range [][2][]float32{{g.sel, nn.sel}, {g.els, nn.els}, {g.then, nn.then}} {
			for i := range p[0] {
				require.Equal(t, math.Float32bits(p[0][i]), math.Float32bits(p[1][i]), "select n %d at %d", n, i)
			}
		}
	}
}

// TestNEONIndexOfMatchesGo checks the index search at LevelNEON against the
// Go level: values present (ties included), absent, NaN and signed zeros,
// at lengths covering the tail.
func TestNEONIndexOfMatchesGo(t *testing.T) {
	r := newRand(t)
	for _, n := range []int{1, 3, 4, 5, 8, 17, 64, 301} {
		for trial := 0; trial < 20; trial++ {
			x := poolInput(r, n) // small integers with NaN and infinities: ties are common
			for _, v := range []float32{x[r.IntN(n)], float32(math.NaN()), 0.5, float32(math.Copysign(0, -1))} {
				g, nn := atLevels(func() int { return current.indexOf(x, v) })
				require.Equal(t, g, nn, "n %d, v %g in %v", n, v, x)
			}
		}
	}
}
