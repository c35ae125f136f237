package tensor

import (
	"errors"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// usageOf runs fn and reports whether it panicked with a UsageError; any
// other panic fails the test.
func usageOf(t *testing.T, fn func()) (refused bool) {
	t.Helper()
	err := Catch(fn)
	var ue *UsageError
	if err != nil {
		require.True(t, errors.As(err, &ue), "%v", err)
	}
	return err != nil
}

// bigExtent is the exact product of dims counting zeros as one.
func bigExtent(dims ...int) *big.Int {
	p := big.NewInt(1)
	for _, d := range dims {
		p.Mul(p, big.NewInt(int64(max(d, 1))))
	}
	return p
}

// fits reports whether a shape of exact extent e is allowed.
func fits(e *big.Int) bool { return e.Cmp(big.NewInt(MaxElements)) <= 0 }

// FuzzCheckShape: a shape is accepted exactly when no dimension is negative
// and its exact extent is at most MaxElements.
func FuzzCheckShape(f *testing.F) {
	f.Add(int64(1<<62+1), int64(4), int64(1))
	f.Add(int64(0), int64(1<<40), int64(1<<40))
	f.Add(int64(1<<31-1), int64(1), int64(0))
	f.Add(int64(-1), int64(2), int64(3))
	f.Fuzz(func(t *testing.T, a, b, c int64) {
		shape := []int{int(a), int(b), int(c)}
		refused := usageOf(t, func() { checkShape("fuzz", shape) })
		ok := a >= 0 && b >= 0 && c >= 0 && fits(bigExtent(shape...))
		require.Equal(t, !ok, refused, "shape %v", shape)
	})
}

// FuzzBroadcast: broadcasting two shapes gives NumPy's result when its
// extent fits and a UsageError otherwise.
func FuzzBroadcast(f *testing.F) {
	f.Add(int64(1<<20), int64(1), int64(1), int64(1<<20))
	f.Add(int64(3), int64(1), int64(3), int64(4))
	f.Add(int64(0), int64(5), int64(1), int64(5))
	f.Fuzz(func(t *testing.T, a0, a1, b0, b1 int64) {
		a, b := []int{int(a0), int(a1)}, []int{int(b0), int(b1)}
		for _, s := range [][]int{a, b} {
			if usageOf(t, func() { checkShape("fuzz", s) }) {
				return // operands are always valid shapes
			}
		}
		var out []int
		refused := usageOf(t, func() { out = broadcastShapes("fuzz", a, b) })
		want := make([]int, 2)
		compatible := true
		for i := range want {
			switch {
			case a[i] == b[i] || b[i] == 1:
				want[i] = a[i]
			case a[i] == 1:
				want[i] = b[i]
			default:
				compatible = false
			}
		}
		if !compatible || !fits(bigExtent(want...)) {
			require.True(t, refused, "%v and %v", a, b)
			return
		}
		require.False(t, refused)
		require.Equal(t, want, out)
	})
}

// FuzzReshape: reshaping a valid shape to another (with or without -1) is
// accepted exactly when the exact element counts agree, and then the
// strides found without copying address the same elements as a copy would.
func FuzzReshape(f *testing.F) {
	f.Add(int64(0), int64(1), int64(1<<32), int64(1<<32))
	f.Add(int64(4), int64(1), int64(1<<62+1), int64(4))
	f.Add(int64(6), int64(4), int64(-1), int64(8))
	f.Add(int64(6), int64(4), int64(3), int64(8))
	f.Fuzz(func(t *testing.T, f0, f1, s0, s1 int64) {
		from := []int{int(f0), int(f1)}
		if usageOf(t, func() { checkShape("fuzz", from) }) {
			return
		}
		shape := []int{int(s0), int(s1)}
		var got []int
		refused := usageOf(t, func() { got = inferShape("fuzz", from, shape) })
		n := new(big.Int).Mul(big.NewInt(f0), big.NewInt(f1))
		want := shape
		switch {
		case s0 == -1 && s1 >= 0 && s1 != 0 && new(big.Int).Mod(n, big.NewInt(s1)).Sign() == 0:
			want = []int{int(new(big.Int).Div(n, big.NewInt(s1)).Int64()), int(s1)}
		case s1 == -1 && s0 > 0 && new(big.Int).Mod(n, big.NewInt(s0)).Sign() == 0:
			want = []int{int(s0), int(new(big.Int).Div(n, big.NewInt(s0)).Int64())}
		case s0 < 0 || s1 < 0:
			require.True(t, refused, "%v to %v", from, shape)
			return
		}
		prod := new(big.Int).Mul(big.NewInt(int64(want[0])), big.NewInt(int64(want[1])))
		if prod.Cmp(n) != 0 || !fits(bigExtent(want...)) {
			require.True(t, refused, "%v to %v", from, shape)
			return
		}
		require.False(t, refused, "%v to %v", from, shape)
		require.Equal(t, want, got)
		st := contiguousView(from).strides
		if ns, ok := reshapeStrides(from, st, got); ok && n.Sign() > 0 && n.Int64() <= 4096 {
			k := 0
			for i := range got[0] {
				for j := range got[1] {
					require.Equal(t, k, i*ns[0]+j*ns[1], "element %d of %v as %v", k, from, got)
					k++
				}
			}
		}
	})
}

// FuzzConvOutSize checks the window arithmetic against exact integers.
func FuzzConvOutSize(f *testing.F) {
	f.Add(int64(8), int64(3), int64(1), int64(0), int64(1<<62))
	f.Add(int64(8), int64(3), int64(1), int64(1<<62), int64(1))
	f.Add(int64(28), int64(5), int64(2), int64(2), int64(1))
	f.Add(int64(1), int64(2), int64(1), int64(1), int64(1))
	f.Fuzz(func(t *testing.T, in, k, s, p, d int64) {
		out, ok := convOutSize(int(in), int(k), int(s), int(p), int(d))
		if in < 0 || k < 1 || s < 1 || p < 0 || d < 1 {
			require.False(t, ok)
			return
		}
		span := new(big.Int).Mul(big.NewInt(d), big.NewInt(k-1))
		span.Add(span, big.NewInt(1))
		padded := new(big.Int).Mul(big.NewInt(p), big.NewInt(2))
		padded.Add(padded, big.NewInt(in))
		if padded.Cmp(span) < 0 {
			require.False(t, ok)
			return
		}
		want := new(big.Int).Sub(padded, span)
		want.Div(want, big.NewInt(s)).Add(want, big.NewInt(1))
		if !padded.IsInt64() {
			// The exact answer may be representable, but the inputs are
			// beyond any tensor: refusing is allowed, a wrong value is not.
			if ok {
				require.Equal(t, want.Int64(), int64(out))
			}
			return
		}
		require.True(t, ok, "in %d kernel %d stride %d pad %d dilation %d", in, k, s, p, d)
		require.Equal(t, want.Int64(), int64(out))
	})
}
