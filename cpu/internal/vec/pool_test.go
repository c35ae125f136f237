package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// poolInput returns an input plane of rows×ld values with ties, NaN and
// ±Inf mixed in among small integers (so equal values are common).
func poolInput(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		switch k := r.IntN(40); {
		case k == 0:
			x[i] = float32(math.NaN())
		case k == 1:
			x[i] = float32(math.Inf(1))
		case k == 2:
			x[i] = float32(math.Inf(-1))
		default:
			x[i] = float32(r.IntN(7) - 3)
		}
	}
	return x
}

// refMaxPool2x2 is the float64 specification: the last NaN, else the
// first largest value, in window order (PyTorch's rule).
func refMaxPool2x2(x []float32, ldx, iw, oh, ow int) ([]float32, []int32) {
	out, idx := make([]float32, oh*ow), make([]int32, oh*ow)
	for r := 0; r < oh; r++ {
		for c := 0; c < ow; c++ {
			best, arg := math.Inf(-1), -1
			for _, d := range [][2]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
				v := float64(x[(2*r+d[0])*ldx+2*c+d[1]])
				if arg < 0 || v > best || math.IsNaN(v) {
					best, arg = v, (2*r+d[0])*iw+2*c+d[1]
				}
			}
			out[r*ow+c], idx[r*ow+c] = float32(best), int32(arg)
		}
	}
	return out, idx
}

// poolShapes are (oh, ow, extra columns of ldx) covering tails of both
// vector widths, single rows and columns, and widths beyond 32.
var poolShapes = [][3]int{{1, 1, 0}, {1, 7, 1}, {3, 8, 0}, {2, 13, 1}, {5, 5, 1}, {4, 16, 0}, {3, 17, 2},
	{2, 24, 1}, {13, 13, 0}, {6, 6, 1}, {2, 31, 0}, {3, 32, 3}, {2, 33, 1}, {2, 70, 5}}

func TestMaxPool2x2MatchesReference(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, _ Level) {
		for _, sh := range poolShapes {
			oh, ow, extra := sh[0], sh[1], sh[2]
			iw := 2*ow + r.IntN(2) // an odd width leaves a column out
			ldx := iw + extra
			x := poolInput(r, (2*oh-1)*ldx+2*ow)
			want, wantIdx := refMaxPool2x2(x, ldx, iw, oh, ow)
			out, idx := make([]float32, oh*ow), make([]int32, oh*ow)
			MaxPool2x2(out, idx, x, ldx, iw, oh, ow)
			name := fmt.Sprintf("%dx%d ldx %d iw %d", oh, ow, ldx, iw)
			require.Equal(t, wantIdx, idx, name)
			for i := range want {
				require.Equal(t, math.Float32bits(want[i]) == math.Float32bits(out[i]) || (want[i] != want[i] && out[i] != out[i]), true,
					"%s output %d: got %v want %v", name, i, out[i], want[i])
			}
			out2 := make([]float32, oh*ow)
			MaxPool2x2(out2, nil, x, ldx, iw, oh, ow)
			require.Equal(t, fmt.Sprint(out), fmt.Sprint(out2), "%s without indices", name)
		}
	})
}

func TestMaxUnpool2x2(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, _ Level) {
		for _, sh := range poolShapes {
			oh, ow, extra := sh[0], sh[1], sh[2]
			iw := 2*ow + r.IntN(2)
			ldx := iw + extra
			x := poolInput(r, (2*oh-1)*ldx+2*ow)
			_, idx := refMaxPool2x2(x, ldx, iw, oh, ow)
			dy := make([]float32, oh*ow)
			for i := range dy {
				dy[i] = r.Float32()*2 - 1
			}
			n := 2 * oh * ldx
			want := make([]float32, n)
			for i := range want {
				want[i] = -7 // outside every window: left alone
			}
			for rr := 0; rr < 2*oh; rr++ {
				clear(want[rr*ldx : rr*ldx+2*ow])
			}
			for q, p := range idx {
				want[int(p)/iw*ldx+int(p)%iw] += dy[q]
			}
			dx := make([]float32, n)
			for i := range dx {
				dx[i] = -7
			}
			name := fmt.Sprintf("%dx%d ldx %d iw %d", oh, ow, ldx, iw)
			require.True(t, MaxUnpool2x2(dx, dy, idx, ldx, iw, oh, ow), name)
			require.Equal(t, want, dx, name)

			// An index outside its window, anywhere, is refused.
			q := r.IntN(oh * ow)
			bad := append([]int32(nil), idx...)
			bad[q] = []int32{-1, bad[q] + 2, bad[q] + int32(2*iw), 1 << 30}[r.IntN(4)]
			if oh*ow == 1 && bad[q] == idx[q]+2 && iw < 4 {
				continue
			}
			require.False(t, MaxUnpool2x2(dx, dy, bad, ldx, iw, oh, ow), "%s bad index %d at %d", name, bad[q], q)
		}
	})
}

func TestCopyAndAddRows(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, _ Level) {
		for _, cols := range []int{1, 3, 7, 8, 9, 11, 15, 16, 17, 31, 33, 63, 64, 65, 100, 143} {
			rows := 1 + r.IntN(5)
			ldd, lds := cols+r.IntN(4), cols+r.IntN(4)
			src := make([]float32, (rows-1)*lds+cols)
			for i := range src {
				src[i] = r.Float32()
			}
			dst := make([]float32, rows*ldd)
			for i := range dst {
				dst[i] = float32(i)
			}
			want := append([]float32(nil), dst...)
			for i := 0; i < rows; i++ {
				for j := 0; j < cols; j++ {
					want[i*ldd+j] += src[i*lds+j]
				}
			}
			AddRows(dst, ldd, src, lds, rows, cols)
			require.Equal(t, want, dst, "add %dx%d", rows, cols)
			for i := 0; i < rows; i++ {
				copy(want[i*ldd:i*ldd+cols], src[i*lds:])
			}
			CopyRows(dst, ldd, src, lds, rows, cols)
			require.Equal(t, want, dst, "copy %dx%d", rows, cols)
		}
	})
}

func TestWindowKernelsCheckSizes(t *testing.T) {
	require.PanicsWithValue(t, "vec.CopyBlocks: src of 10 elements cannot hold 2 rows of 6, 6 apart", func() {
		CopyRows(make([]float32, 12), 6, make([]float32, 10), 6, 2, 6)
	})
	require.Panics(t, func() { MaxPool2x2(make([]float32, 4), nil, make([]float32, 15), 4, 4, 2, 2) })
	require.Panics(t, func() { MaxUnpool2x2(make([]float32, 16), make([]float32, 4), make([]int32, 3), 4, 4, 2, 2) })
}

func TestConv3x3AndCorr3x3(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, _ Level) {
		for _, sh := range [][2]int{{1, 1}, {3, 7}, {26, 26}, {11, 11}, {2, 16}, {4, 17}, {5, 33}, {3, 40}} {
			rows, cols := sh[0], sh[1]
			ldx, ldy := cols+2+r.IntN(3), cols+r.IntN(3)
			x := make([]float32, (rows+1)*ldx+cols+2)
			for i := range x {
				x[i] = r.Float32()*2 - 1
			}
			w := make([]float32, 9)
			for i := range w {
				w[i] = r.Float32()*2 - 1
			}
			y := make([]float32, (rows-1)*ldy+cols)
			for i := range y {
				y[i] = float32(i % 5)
			}
			want := make([]float64, len(y))
			wantW := make([]float64, 9)
			for rr := 0; rr < rows; rr++ {
				for c := 0; c < cols; c++ {
					s := float64(y[rr*ldy+c])
					for a := 0; a < 3; a++ {
						for b := 0; b < 3; b++ {
							xv := float64(x[(rr+a)*ldx+c+b])
							s += float64(w[3*a+b]) * xv
							wantW[3*a+b] += float64(y[rr*ldy+c]) * xv
						}
					}
					want[rr*ldy+c] = s
				}
				for c := cols; c < ldy && rr*ldy+c < len(y); c++ {
					want[rr*ldy+c] = float64(y[rr*ldy+c]) // between rows: untouched
				}
			}
			acc := make([]float32, 9)
			acc[4] = 1
			wantW[4]++
			Corr3x3(acc, y, ldy, x, ldx, rows, cols) // before y changes
			for i := range acc {
				require.InDelta(t, wantW[i], acc[i], 1e-5*float64(rows*cols), "corr %dx%d tap %d", rows, cols, i)
			}
			Conv3x3(y, ldy, x, ldx, w, rows, cols, true)
			for i := range y {
				require.InDelta(t, want[i], y[i], 1e-5, "conv acc %dx%d at %d", rows, cols, i)
			}
			Conv3x3(y, ldy, x, ldx, w, rows, cols, false)
			for rr := 0; rr < rows; rr++ {
				for c := 0; c < cols; c++ {
					require.InDelta(t, want[rr*ldy+c]-float64(int(rr*ldy+c)%5), y[rr*ldy+c], 1e-5, "conv %dx%d", rows, cols)
				}
			}
		}
	})
}

func TestCopyAndAddBlocks(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, _ Level) {
		for _, cols := range []int{1, 5, 11, 16, 21, 40} {
			blocks, rows := 1+r.IntN(4), 1+r.IntN(4)
			ldd, lds := cols+r.IntN(3), cols+r.IntN(3)
			bd, bs := rows*ldd+r.IntN(3), rows*lds+r.IntN(5)
			src := make([]float32, (blocks-1)*bs+(rows-1)*lds+cols)
			for i := range src {
				src[i] = r.Float32()
			}
			dst := make([]float32, (blocks-1)*bd+(rows-1)*ldd+cols+r.IntN(3))
			for i := range dst {
				dst[i] = float32(i)
			}
			want := append([]float32(nil), dst...)
			for k := 0; k < blocks; k++ {
				for i := 0; i < rows; i++ {
					for j := 0; j < cols; j++ {
						want[k*bd+i*ldd+j] += src[k*bs+i*lds+j]
					}
				}
			}
			AddBlocks(dst, ldd, bd, src, lds, bs, blocks, rows, cols)
			require.Equal(t, want, dst, "add %d×%d×%d", blocks, rows, cols)
			for k := 0; k < blocks; k++ {
				for i := 0; i < rows; i++ {
					copy(want[k*bd+i*ldd:][:cols], src[k*bs+i*lds:])
				}
			}
			CopyBlocks(dst, ldd, bd, src, lds, bs, blocks, rows, cols)
			require.Equal(t, want, dst, "copy %d×%d×%d", blocks, rows, cols)
		}
	})
	require.Panics(t, func() { CopyBlocks(make([]float32, 20), 4, 10, make([]float32, 20), 4, 10, 3, 2, 4) })
}

func TestCol2Im3x3(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, _ Level) {
		for _, sh := range [][2]int{{1, 1}, {11, 11}, {3, 5}, {2, 14}, {4, 15}, {3, 16}, {5, 6}, {2, 30}, {26, 26}, {3, 47}} {
			oh, ow := sh[0], sh[1]
			ts := oh*ow + r.IntN(4)
			col := make([]float32, 8*ts+oh*ow)
			for i := range col {
				col[i] = r.Float32()*2 - 1
			}
			ldx := ow + 2 + r.IntN(3)
			dx := make([]float32, (oh+1)*ldx+ow+2+2)
			for i := range dx {
				dx[i] = 9 // poison inside the plane, and outside it must survive
			}
			want := append([]float32(nil), dx...)
			for i := 0; i < oh+2; i++ {
				for j := 0; j < ow+2; j++ {
					var s float64
					for a := 0; a < 3; a++ {
						for b := 0; b < 3; b++ {
							if i-a >= 0 && i-a < oh && j-b >= 0 && j-b < ow {
								s += float64(col[(3*a+b)*ts+(i-a)*ow+j-b])
							}
						}
					}
					want[i*ldx+j] = float32(s)
				}
			}
			Col2Im3x3(dx, ldx, col, ts, oh, ow)
			for i := range want {
				require.InDelta(t, want[i], dx[i], 1e-5, "%dx%d ldx %d ts %d at %d", oh, ow, ldx, ts, i)
			}
		}
	})
}

// TestSplitPairs splits rows of every length up to a few vectors, with
// guard elements after both halves that must survive, at every level.
func TestSplitPairs(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, _ Level) {
		for n := 0; n <= 70; n++ {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			ne, no := (n+1)/2, n/2
			even, odd := make([]float32, ne+2), make([]float32, no+2)
			for _, g := range [][]float32{even[ne:], odd[no:]} {
				g[0], g[1] = -7, -7
			}
			SplitPairs(even, odd, x)
			for i := range ne {
				if x[2*i] != even[i] {
					require.Equal(t, x[2*i], even[i], "n=%d even[%d]", n, i)
				}
			}
			for i := range no {
				if x[2*i+1] != odd[i] {
					require.Equal(t, x[2*i+1], odd[i], "n=%d odd[%d]", n, i)
				}
			}
			require.Equal(t, []float32{-7, -7}, even[ne:], "n=%d: past even's half", n)
			require.Equal(t, []float32{-7, -7}, odd[no:], "n=%d: past odd's half", n)
		}
	})
	require.PanicsWithValue(t, "vec.SplitPairs: even of 2 and odd of 2 elements cannot hold the halves of 5", func() {
		SplitPairs(make([]float32, 2), make([]float32, 2), make([]float32, 5))
	})
}
