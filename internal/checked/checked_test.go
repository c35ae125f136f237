package checked

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// bigProduct is the exact product of dims, counting zeros as one when
// extent is set.
func bigProduct(dims []int, extent bool) *big.Int {
	p := big.NewInt(1)
	for _, d := range dims {
		if extent && d == 0 {
			d = 1
		}
		p.Mul(p, big.NewInt(int64(d)))
	}
	return p
}

// checkAgainstBig asserts that got/ok is the exact value when it fits and
// an overflow otherwise.
func checkAgainstBig(t *testing.T, want *big.Int, got int, ok bool) {
	t.Helper()
	fits := want.IsInt64() && want.Sign() >= 0
	require.Equal(t, fits, ok, "exact value %v", want)
	if fits {
		require.Equal(t, want.Int64(), int64(got))
	}
}

func TestMulAddEdges(t *testing.T) {
	_, ok := Mul(1<<62+1, 4)
	require.False(t, ok, "(2^62+1)*4 wraps to 4")
	_, ok = Mul(1<<32, 1<<32)
	require.False(t, ok)
	v, ok := Mul(1<<31, 1<<31)
	require.True(t, ok)
	require.Equal(t, 1<<62, v)
	_, ok = Mul(-1, 2)
	require.False(t, ok)
	_, ok = Add(math.MaxInt, 1)
	require.False(t, ok)
	v, ok = Add(math.MaxInt-1, 1)
	require.True(t, ok)
	require.Equal(t, math.MaxInt, v)
}

func TestProductAndExtent(t *testing.T) {
	n, ok := Product(1<<62+1, 4)
	require.False(t, ok, "got %d", n)
	n, ok = Product(0, 1<<40, 1<<40)
	require.True(t, ok)
	require.Zero(t, n)
	_, ok = Extent(0, 1<<40, 1<<40)
	require.False(t, ok, "the strides of [0, 2^40, 2^40] overflow")
	_, ok = Product(1<<40, 1<<40, -1)
	require.False(t, ok)
	n, ok = Product()
	require.True(t, ok)
	require.Equal(t, 1, n)
}

func FuzzProduct(f *testing.F) {
	f.Add(int64(1<<62+1), int64(4), int64(1))
	f.Add(int64(1<<40), int64(1<<40), int64(0))
	f.Add(int64(-3), int64(0), int64(7))
	f.Add(int64(math.MaxInt64), int64(1), int64(1))
	f.Fuzz(func(t *testing.T, a, b, c int64) {
		dims := []int{int(a), int(b), int(c)}
		n, ok := Product(dims...)
		if a < 0 || b < 0 || c < 0 {
			require.False(t, ok)
			return
		}
		checkAgainstBig(t, bigProduct(dims, false), n, ok)
		n, ok = Extent(dims...)
		checkAgainstBig(t, bigProduct(dims, true), n, ok)
		n, ok = Mul(int(a), int(b))
		checkAgainstBig(t, bigProduct(dims[:2], false), n, ok)
		s := new(big.Int).Add(big.NewInt(a), big.NewInt(b))
		n, ok = Add(int(a), int(b))
		checkAgainstBig(t, s, n, ok)
	})
}
