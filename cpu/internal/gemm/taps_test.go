package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSgemmTapsMatchesFloat64 sums products over taps whose B operands are
// shifted views of one buffer (as a convolution's padded input), with ragged
// rows and columns, depths past a cache block and leading dimensions with
// gaps, against a float64 reference. C starts as NaN (it must be written
// without being read) and its padding columns must survive.
func TestSgemmTapsMatchesFloat64(t *testing.T) {
	seed := baseSeed(t)
	cases := []struct{ m, n, k, taps int }{
		{64, 464, 64, 9}, {13, 33, 3, 4}, {15, 1, 300, 2}, {1, 100, 1, 9}, {29, 70, 257, 3}, {128, 238, 128, 9}, {5, 40, 7, 0},
	}
	for i, tc := range cases {
		rng := rand.New(rand.NewPCG(seed+uint64(i), 7))
		cols := (tc.n + TapsTile - 1) / TapsTile * TapsTile
		lda, ldb, ldc := tc.taps*tc.k+rng.IntN(3), tc.n+rng.IntN(40), tc.n+rng.IntN(3)
		bOff := make([]int, tc.taps)
		for t := range bOff {
			bOff[t] = rng.IntN(50)
		}
		a := randSlice(rng, max(tc.m*lda, 1))
		b := randSlice(rng, 50+max(tc.k-1, 0)*ldb+cols)
		want := make([]float64, tc.m*tc.n)
		tol := make([]float64, tc.m*tc.n)
		for r := 0; r < tc.m; r++ {
			for j := 0; j < tc.n; j++ {
				var sum, mag float64
				for tap, off := range bOff {
					for p := 0; p < tc.k; p++ {
						x := float64(a[r*lda+tap*tc.k+p]) * float64(b[off+p*ldb+j])
						sum, mag = sum+x, mag+math.Abs(x)
					}
				}
				want[r*tc.n+j] = sum
				tol[r*tc.n+j] = 2*float64(tc.taps*tc.k+2)*0x1p-23*mag + 1e-30
			}
		}
		forEachLevel(t, func(t *testing.T) {
			if !TapsReady() {
				var one TapsA
				one.Pack(1, 1, 1, []float32{1}, 1)
				require.Panics(t, func() { SgemmTaps(1, &one, b, ldb, []int{0}, make([]float32, 1), 1) })
				return
			}
			var packed TapsA
			packed.Pack(tc.m, tc.k, tc.taps, a, lda)
			c := make([]float32, tc.m*ldc)
			for r := 0; r < tc.m; r++ {
				for j := range ldc {
					c[r*ldc+j] = float32(math.NaN())
					if j >= tc.n {
						c[r*ldc+j] = cSentinel
					}
				}
			}
			SgemmTaps(tc.n, &packed, b, ldb, bOff, c, ldc)
			for r := 0; r < tc.m; r++ {
				for j := 0; j < ldc; j++ {
					got := c[r*ldc+j]
					if j >= tc.n {
						require.Equal(t, cSentinel, got, "case %d: padding C[%d,%d] overwritten", i, r, j)
						continue
					}
					w, e := want[r*tc.n+j], tol[r*tc.n+j]
					require.True(t, math.Abs(float64(got)-w) <= e, "case %d %+v seed %d: C[%d,%d] = %g, want %g ± %g", i, tc, seed, r, j, got, w, e)
				}
			}
		})
	}
}

// TestSgemmTapsRefusesShortOperands checks that operands too short for the
// product, or packed at another level, panic with SgemmTaps's message
// instead of reaching the kernels.
func TestSgemmTapsRefusesShortOperands(t *testing.T) {
	if !TapsReady() {
		t.Skip("the level in use has no kernels reading B in place: " + ISA())
	}
	a, b, c := make([]float32, 3*36), make([]float32, 3*40+TapsTile+1), make([]float32, 2*20)
	var one, two, three TapsA
	one.Pack(2, 4, 1, a, 36)
	two.Pack(2, 4, 2, a, 36)
	three.Pack(3, 4, 1, a, 36)
	require.NotPanics(t, func() { SgemmTaps(20, &two, b, 40, []int{0, 1}, c, 20) })
	need := 2 + 3*40 + TapsTile // tap 1's offset, its rows, a whole tile of its last
	require.PanicsWithValue(t, fmt.Sprintf("gemm.SgemmTaps(m=2, n=20, k=4, taps=2, ldb=40, offsets=2, ldc=20): B of tap 1 at offset 2 needs %d floats, len(b) = %d", need, need-1),
		func() { SgemmTaps(20, &two, b, 40, []int{0, 2}, c, 20) })
	require.Panics(t, func() { SgemmTaps(20, &one, b, 40, []int{0}, c, 19) }, "ldc under n")
	require.Panics(t, func() { SgemmTaps(20, &three, b, 40, []int{0}, c, 20) }, "C too short")
	require.Panics(t, func() { SgemmTaps(20, &two, b, 40, []int{0}, c, 20) }, "an offset missing")
	require.Panics(t, func() { SgemmTaps(20, &one, b, 40, []int{-1}, c, 20) }, "negative offset")
	require.Panics(t, func() { one.Pack(3, 4, 10, a, 40) }, "A too short")
	for _, l := range supportedLevels() {
		if l != active {
			func() {
				defer setLevel(l)()
				require.Panics(t, func() { SgemmTaps(20, &one, b, 40, []int{0}, c, 20) }, "A packed at another level")
			}()
		}
	}
}

// TestTapsLeadingDim checks that leading dimensions whose rows would start
// on one L1 set get a cache line more and the others stay.
func TestTapsLeadingDim(t *testing.T) {
	for _, n := range []int{1, 196, 512, 1000, 1024, 4096, 4608} {
		ld := TapsLeadingDim(n)
		require.GreaterOrEqual(t, ld, n)
		require.False(t, setBound(ld), "n %d: ld %d", n, ld)
		if !setBound(n) {
			require.Equal(t, n, ld)
		}
	}
}
