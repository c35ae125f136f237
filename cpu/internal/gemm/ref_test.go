package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// gemmCase is one product with its stored operands, built from a seed.
type gemmCase struct {
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	lda, ldb, ldc  int
	a, b, c0       []float32 // c0: C before the call (padding holds sentinels)
	seed           uint64
}

// cSentinel fills C's padding columns; they must survive every call.
const cSentinel = float32(-12345.5)

func (tc *gemmCase) String() string {
	return fmt.Sprintf("seed=%d transA=%v transB=%v m=%d n=%d k=%d alpha=%g beta=%g lda=%d ldb=%d ldc=%d",
		tc.seed, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, tc.beta, tc.lda, tc.ldb, tc.ldc)
}

// newCase builds random operands; pad adds up to that many extra columns to
// each leading dimension. With beta == 0, C starts as NaN so that a read of C
// would show.
func newCase(seed uint64, transA, transB bool, m, n, k int, alpha, beta float32, pad int) *gemmCase {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	tc := &gemmCase{transA: transA, transB: transB, m: m, n: n, k: k, alpha: alpha, beta: beta, seed: seed}
	extra := func() int {
		if pad == 0 {
			return 0
		}
		return rng.IntN(pad + 1)
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	tc.lda, tc.ldb, tc.ldc = max(ac, 1)+extra(), max(bc, 1)+extra(), max(n, 1)+extra()
	fill := func(rows, ld int) []float32 {
		s := make([]float32, rows*ld)
		for i := range s {
			s[i] = float32(rng.Float64()*2 - 1)
		}
		return s
	}
	tc.a, tc.b = fill(ar, tc.lda), fill(br, tc.ldb)
	tc.c0 = fill(m, tc.ldc)
	for i := 0; i < m; i++ {
		for j := 0; j < tc.ldc; j++ {
			switch {
			case j >= n:
				tc.c0[i*tc.ldc+j] = cSentinel
			case beta == 0:
				tc.c0[i*tc.ldc+j] = float32(math.NaN())
			}
		}
	}
	return tc
}

func (tc *gemmCase) opA(i, p int) float64 {
	if tc.transA {
		return float64(tc.a[p*tc.lda+i])
	}
	return float64(tc.a[i*tc.lda+p])
}

func (tc *gemmCase) opB(p, j int) float64 {
	if tc.transB {
		return float64(tc.b[j*tc.ldb+p])
	}
	return float64(tc.b[p*tc.ldb+j])
}

// reference returns the float64 result and, per element, an error bound:
// float32 accumulation of k products errs by at most about k*eps times the
// sum of their magnitudes.
func (tc *gemmCase) reference() (want, tol []float64) {
	want = make([]float64, tc.m*tc.n)
	tol = make([]float64, tc.m*tc.n)
	const eps = 1.0 / (1 << 23)
	alpha, beta := float64(tc.alpha), float64(tc.beta)
	// op(A)'s rows and op(B)'s columns as float64 runs, so that the dot
	// products read memory in order.
	rows, cols := make([]float64, tc.m*tc.k), make([]float64, tc.n*tc.k)
	for p := 0; p < tc.k; p++ {
		for i := 0; i < tc.m; i++ {
			rows[i*tc.k+p] = tc.opA(i, p)
		}
		for j := 0; j < tc.n; j++ {
			cols[j*tc.k+p] = tc.opB(p, j)
		}
	}
	for i := 0; i < tc.m; i++ {
		row := rows[i*tc.k : (i+1)*tc.k]
		for j := 0; j < tc.n; j++ {
			col := cols[j*tc.k : (j+1)*tc.k]
			var sum, mag float64
			for p, a := range row {
				x := a * col[p]
				sum += x
				mag += math.Abs(x)
			}
			v, bound := alpha*sum, math.Abs(alpha)*mag
			if beta != 0 {
				c := float64(tc.c0[i*tc.ldc+j])
				v += beta * c
				bound += math.Abs(beta * c)
			}
			want[i*tc.n+j] = v
			tol[i*tc.n+j] = 2*float64(tc.k+2)*eps*bound + 1e-30
		}
	}
	return want, tol
}

// check runs Sgemm on a fresh copy of C with the given thread count and
// compares with the reference.
func (tc *gemmCase) check(t *testing.T, threads int, want, tol []float64) {
	t.Helper()
	c := append([]float32(nil), tc.c0...)
	sgemm(threads, false, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc)
	for i := 0; i < tc.m; i++ {
		for j := 0; j < tc.ldc; j++ {
			got := c[i*tc.ldc+j]
			if j >= tc.n {
				if got != cSentinel {
					require.Equal(t, cSentinel, got, "%s isa=%s threads=%d: padding C[%d,%d] overwritten", tc, ISA(), threads, i, j)
				}
				continue
			}
			w, e := want[i*tc.n+j], tol[i*tc.n+j]
			if !(math.Abs(float64(got)-w) <= e) {
				require.Failf(t, "wrong element", "%s isa=%s threads=%d: C[%d,%d] = %g, want %g ± %g",
					tc, ISA(), threads, i, j, got, w, e)
			}
		}
	}
}

// forEachLevel runs f once per instruction-set level this machine supports.
func forEachLevel(t *testing.T, f func(t *testing.T)) {
	for _, l := range supportedLevels() {
		t.Run(l.String(), func(t *testing.T) {
			defer setLevel(l)()
			f(t)
		})
	}
}
