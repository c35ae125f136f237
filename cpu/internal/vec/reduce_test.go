package vec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// finiteInput returns n finite values of mixed magnitude.
func finiteInput(r *rand.Rand, n int) []float32 {
	x := randInput(r, n, 10)
	for i, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) || math.Abs(float64(v)) > 1e20 {
			x[i] = r.Float32()
		}
	}
	return x
}

// exactSum returns the sum of terms with float64 compensated summation
// (accurate to about 1e-30 relative here) and the sum of magnitudes.
func exactSum(terms []float64) (sum, mag float64) {
	var s, c float64
	for _, t := range terms {
		y := t - c
		u := s + y
		c = (u - s) - y
		s = u
		mag += math.Abs(t)
	}
	return s, mag
}

func TestSums(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range testLengths {
			a, b := finiteInput(r, n), finiteInput(r, n)
			mean := r.Float32()
			terms := map[string][]float64{}
			for i := range a {
				x, y := float64(a[i]), float64(b[i])
				terms["Sum"] = append(terms["Sum"], x)
				terms["Dot"] = append(terms["Dot"], x*y)
				terms["SumSquares"] = append(terms["SumSquares"], x*x)
				d := x - float64(mean)
				terms["SumSqDiff"] = append(terms["SumSqDiff"], d*d)
			}
			got := map[string]float64{"Sum": Sum(a), "Dot": Dot(a, b), "SumSquares": SumSquares(a), "SumSqDiff": SumSqDiff(a, mean)}
			for name, g := range got {
				want, mag := exactSum(terms[name])
				// float64 accumulation: a few roundings of partial sums.
				assert.InDelta(t, want, g, float64(n+1)*0x1p-53*mag+1e-300, "%s of %d", name, n)
			}
		}
	})
}

// refExtreme is the serial definition: the first NaN, else the max/min.
func refExtreme(x []float32, max bool) float32 { return goExtreme(x, max) }

// refArg is the serial argmax/argmin: first NaN, else first extreme.
func refArg(x []float32, max bool) int {
	best := 0
	for i, v := range x {
		if v != v {
			return i
		}
		if (max && v > x[best]) || (!max && v < x[best]) {
			best = i
		}
	}
	return best
}

func TestExtremes(t *testing.T) {
	r := newRand(t)
	nan := float32(math.NaN())
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range testLengths[1:] {
			for trial := 0; trial < 6; trial++ {
				x := finiteInput(r, n)
				switch trial {
				case 1: // a NaN somewhere, maybe in the tail
					x[r.IntN(n)] = nan
				case 2: // ties of the extremes at two places
					x[r.IntN(n)], x[r.IntN(n)] = 1e30, 1e30
					x[r.IntN(n)], x[r.IntN(n)] = -1e30, -1e30
				case 3: // all the same
					for i := range x {
						x[i] = -float32(math.Inf(1))
					}
				case 4: // extreme in the last element
					x[n-1] = 3e38
					x[0] = -3e38
				case 5: // two NaNs
					x[r.IntN(n)], x[r.IntN(n)] = nan, nan
				}
				for _, max := range []bool{true, false} {
					var got float32
					var idx int
					if max {
						got, idx = Max(x), ArgMax(x)
					} else {
						got, idx = Min(x), ArgMin(x)
					}
					want := refExtreme(x, max)
					require.True(t, sameBits(got, want) || got == want, "max=%v n=%d trial %d: got %g want %g", max, n, trial, got, want)
					require.Equal(t, refArg(x, max), idx, "arg max=%v n=%d trial %d", max, n, trial)
				}
			}
		}
	})
}

func TestIndexOfTailMask(t *testing.T) {
	// Zero-filled tail lanes must not match a search for 0.
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range testLengths[1:] {
			x := make([]float32, n)
			for i := range x {
				x[i] = 1
			}
			assert.Equal(t, -1, current.indexOf(x, 0), "n=%d", n)
			x[n-1] = 0
			assert.Equal(t, n-1, current.indexOf(x, 0), "n=%d", n)
			assert.Equal(t, -1, current.indexOf(x, float32(math.NaN())), "n=%d", n)
		}
	})
}

// softmax64 returns the float64 softmax and log-softmax of x.
func softmax64(x []float32) (sm, lsm []float64) {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, float64(v))
	}
	var s float64
	for _, v := range x {
		s += math.Exp(float64(v) - m)
	}
	for _, v := range x {
		d := float64(v) - m
		sm = append(sm, math.Exp(d)/s)
		lsm = append(lsm, d-math.Log(s))
	}
	return sm, lsm
}

func TestSoftmax(t *testing.T) {
	r := newRand(t)
	inf := float32(math.Inf(1))
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range testLengths[1:] {
			for trial := 0; trial < 5; trial++ {
				x := make([]float32, n)
				for i := range x {
					x[i] = (2*r.Float32() - 1) * 20
				}
				wantNaN := false
				switch trial {
				case 1:
					x[r.IntN(n)] = -inf
				case 2:
					for i := range x {
						x[i] = -inf
					}
					wantNaN = true
				case 3:
					x[r.IntN(n)] = float32(math.NaN())
					wantNaN = true
				case 4:
					x[r.IntN(n)] = inf
					wantNaN = true
				}
				sm, lsm := softmax64(x)
				got, lgot := poison(n), poison(n)
				SoftmaxRow(got, x)
				LogSoftmaxRow(lgot, x)
				xm := float64(Max(x))
				for i := range x {
					if wantNaN {
						if got[i] == got[i] || lgot[i] == lgot[i] {
							t.Fatalf("trial %d: want NaN row, got %g, %g", trial, got[i], lgot[i])
						}
						continue
					}
					if u, a := errULP(got[i], sm[i]); u > 3 && a >= 1e-44 {
						t.Fatalf("softmax n=%d i=%d: %g want %g (%.2f ulp)", n, i, got[i], sm[i], u)
					}
					// log-softmax is (x-m) - log(sum), each step rounded. Both
					// sides take the log of a float64 sum of n terms, one of
					// them 1: near 1 each holds log(sum) only to about n
					// roundings of 2^-53 (the row maximum's log-softmax, about
					// -1e-10 when the other terms are small, differed by 2e-16).
					d := float64(x[i]) - xm
					tol := 2*ulp32(d) + 2*ulp32(d-lsm[i]) + 2*ulp32(lsm[i]) + float64(n+2)*0x1p-53
					if math.Abs(lsm[i]-float64(lgot[i])) > tol {
						t.Fatalf("log-softmax n=%d i=%d: %g want %g", n, i, lgot[i], lsm[i])
					}
				}
				// In place.
				y := append([]float32(nil), x...)
				SoftmaxRow(y, y)
				for i := range y {
					if !sameBits(y[i], got[i]) {
						t.Fatalf("in-place softmax differs at %d", i)
					}
				}
				y = append(y[:0], x...)
				LogSoftmaxRow(y, y)
				for i := range y {
					if !sameBits(y[i], lgot[i]) {
						t.Fatalf("in-place log-softmax differs at %d", i)
					}
				}
			}
		}
		SoftmaxRow(nil, nil) // empty rows are fine
	})
}
