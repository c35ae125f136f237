package vec

import (
	"math"
	"testing"
)

// TestExpSubSum checks ExpSubSum at every level against float64
// exp(x-m) within 3 ulp (SoftmaxRow's bound), its sum against the float64
// sum of the float32 results, in-place use, and NaN for a NaN or +Inf row
// maximum.
func TestExpSubSum(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range testLengths {
			x := make([]float32, n)
			for i := range x {
				x[i] = (2*r.Float32() - 1) * 20
			}
			m := float32(0)
			if n > 0 {
				m = Max(x)
			}
			got := poison(n)
			s := ExpSubSum(got, x, m)
			var want float64
			for i, v := range x {
				if u, a := errULP(got[i], math.Exp(float64(v)-float64(m))); u > 3 && a >= 1e-44 {
					t.Fatalf("n=%d i=%d: exp(%g-%g) = %g (%.2f ulp)", n, i, v, m, got[i], u)
				}
				want += float64(got[i])
			}
			if math.Abs(s-want) > float64(n+1)*0x1p-52*want {
				t.Fatalf("n=%d: sum %g, want %g", n, s, want)
			}
			y := append([]float32(nil), x...)
			if s2 := ExpSubSum(y, y, m); s2 != s {
				t.Fatalf("n=%d: in-place sum %g, want %g", n, s2, s)
			}
			for i := range y {
				if !sameBits(y[i], got[i]) {
					t.Fatalf("n=%d: in-place result differs at %d", n, i)
				}
			}
		}
		// A row holding +Inf has the maximum +Inf: Inf-Inf is NaN, so is
		// the sum, as SoftmaxRow's rule for such rows wants.
		x := []float32{1, float32(math.Inf(1)), 2}
		if s := ExpSubSum(make([]float32, 3), x, float32(math.Inf(1))); !math.IsNaN(s) {
			t.Fatalf("+Inf maximum: sum %g, want NaN", s)
		}
		if s := ExpSubSum(make([]float32, 3), x, float32(math.NaN())); !math.IsNaN(s) {
			t.Fatalf("NaN maximum: sum %g, want NaN", s)
		}
	})
}
