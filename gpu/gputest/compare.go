package gputest

import (
	"math"
	"testing"
)

// Tol is an absolute plus relative tolerance.
type Tol struct{ Abs, Rel float64 }

// Exact demands equal values.
var Exact = Tol{}

// Close reports whether got matches want: NaN matches NaN, infinities must
// be equal, and finite values differ by at most Abs + Rel*|want|.
func (tl Tol) Close(got, want float64) bool {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		return math.IsNaN(want) && math.IsNaN(got)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return got == want
	}
	return math.Abs(got-want) <= tl.Abs+tl.Rel*math.Abs(want)
}

// Check compares got with want element by element and reports the first
// few mismatches; what names the comparison (with the seed).
func Check(t testing.TB, what string, got, want []float64, tl Tol) {
	t.Helper()
	CheckEach(t, what, got, want, func(int) Tol { return tl })
}

// CheckEach is Check with a tolerance for each element, for results whose
// float32 error depends on the data (a row's conditioning).
func CheckEach(t testing.TB, what string, got, want []float64, tol func(i int) Tol) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %d values, want %d", what, len(got), len(want))
		return
	}
	bad := 0
	for i := range got {
		if tl := tol(i); !tl.Close(got[i], want[i]) {
			if bad < 5 {
				t.Errorf("%s: element %d: got %v, want %v (tolerance %+v)", what, i, got[i], want[i], tl)
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d elements differ", what, bad, len(got))
	}
}
