package gemm

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/internal/workpool"
	"github.com/stretchr/testify/require"
)

var seedFlag = flag.Uint64("gemm.seed", 0, "base seed for random inputs (0: time-based); failures print the seed of their case")

// baseSeed returns the seed every case derives its own from.
func baseSeed(t *testing.T) uint64 {
	if *seedFlag != 0 {
		return *seedFlag
	}
	s := uint64(time.Now().UnixNano())
	t.Logf("base seed %d (rerun with -gemm.seed=%d)", s, s)
	return s
}

type shape struct{ m, n, k int }

// runCases checks every shape with every transpose combination, at every
// level and with 1, 2 and 3 threads.
func runCases(t *testing.T, shapes []shape, alpha, beta float32, pad int) {
	seed := baseSeed(t)
	for si, s := range shapes {
		for combo := 0; combo < 4; combo++ {
			tc := newCase(seed+uint64(si*4+combo), combo&1 != 0, combo&2 != 0, s.m, s.n, s.k, alpha, beta, pad)
			want, tol := tc.reference()
			forEachLevel(t, func(t *testing.T) {
				for _, threads := range []int{1, 2, 3} {
					tc.check(t, threads, want, tol)
				}
			})
		}
	}
}

func TestSgemmSmallShapes(t *testing.T) {
	shapes := []shape{{1, 1, 1}, {1, 1, 7}, {2, 3, 4}, {1, 40, 3}, {40, 1, 3}, {13, 17, 19}, {7, 5, 300}}
	runCases(t, shapes, 1, 0, 0)
}

// TestSgemmTileEdges covers every micro-kernel's tile boundaries: m around
// multiples of MR, n around multiples of NR, k around the cache block.
func TestSgemmTileEdges(t *testing.T) {
	var shapes []shape
	for _, mn := range [][2]int{{4, 4}, {6, 16}, {14, 32}} {
		for _, dm := range []int{-1, 0, 1} {
			for _, dn := range []int{-1, 0, 1} {
				shapes = append(shapes, shape{2*mn[0] + dm, 2*mn[1] + dn, 33})
			}
		}
	}
	shapes = append(shapes, shape{30, 70, 255}, shape{30, 70, 256}, shape{30, 70, 257}, shape{29, 65, 513})
	runCases(t, shapes, 1, 0, 0)
}

func TestSgemmAlphaBetaStrides(t *testing.T) {
	shapes := []shape{{13, 17, 19}, {31, 45, 70}, {64, 128, 100}}
	for _, ab := range [][2]float32{{1, 1}, {-1.5, 0.75}, {0.5, 0}, {2, -1}} {
		runCases(t, shapes, ab[0], ab[1], 9)
	}
}

func TestSgemmLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large shapes skipped in -short mode")
	}
	runCases(t, []shape{{513, 1027, 257}, {64, 128, 784}}, 0.75, 0.5, 3)
}

// TestSgemmSuperBlocks shrinks the packing budget so that products split
// into several super-blocks along m, n and k.
func TestSgemmSuperBlocks(t *testing.T) {
	oldDepth, oldBudget := maxDepth, packBudget
	defer func() { maxDepth, packBudget = oldDepth, oldBudget }()
	maxDepth, packBudget = 70, 3000
	runCases(t, []shape{{100, 90, 150}, {47, 200, 71}}, 1.25, 0.5, 2)
	runCases(t, []shape{{60, 61, 141}}, 1, 0, 0)
}

func TestSgemmZeroK(t *testing.T) {
	for _, beta := range []float32{0, 1, -2} {
		tc := newCase(uint64(beta*10+100), false, false, 5, 6, 0, 1, beta, 2)
		want, tol := tc.reference()
		forEachLevel(t, func(t *testing.T) { tc.check(t, 2, want, tol) })
	}
}

func TestSgemmZeroAlpha(t *testing.T) {
	tc := newCase(7, true, false, 9, 11, 5, 0, 0.5, 1)
	for i := range tc.a {
		tc.a[i] = float32(math.NaN()) // alpha == 0: A*B is skipped, as in BLAS
	}
	want, tol := make([]float64, tc.m*tc.n), make([]float64, tc.m*tc.n)
	for i := range want {
		want[i] = 0.5 * float64(tc.c0[i/tc.n*tc.ldc+i%tc.n])
	}
	tc.check(t, 1, want, tol)
}

func TestSgemmEmpty(t *testing.T) {
	c := []float32{1, 2}
	Sgemm(false, false, 0, 2, 3, 1, nil, 3, make([]float32, 6), 2, 0, nil, 2)
	Sgemm(false, false, 1, 0, 3, 1, make([]float32, 3), 3, nil, 1, 0, c, 1)
	require.Equal(t, []float32{1, 2}, c)
}

func TestSgemmPanics(t *testing.T) {
	a, b, c := make([]float32, 12), make([]float32, 12), make([]float32, 9)
	cases := []struct {
		name string
		call func()
		msg  string
	}{
		{"negative m", func() { Sgemm(false, false, -1, 3, 4, 1, a, 4, b, 3, 0, c, 3) }, "negative dimension"},
		{"small lda", func() { Sgemm(false, false, 3, 3, 4, 1, a, 3, b, 3, 0, c, 3) }, "lda = 3 is less than the stored width 4"},
		{"small ldb transposed", func() { Sgemm(false, true, 3, 3, 4, 1, a, 4, b, 3, 0, c, 3) }, "ldb = 3 is less than the stored width 4"},
		{"short a", func() { Sgemm(false, false, 3, 3, 4, 1, a[:11], 4, b, 3, 0, c, 3) }, "len(a) = 11, need at least 12"},
		{"short c", func() { Sgemm(false, false, 3, 3, 4, 1, a, 4, b, 3, 0, c, 4) }, "len(c) = 9, need at least 11"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				require.NotNil(t, r, "no panic")
				require.Contains(t, r, "gemm.Sgemm(")
				require.Contains(t, r, tc.msg)
			}()
			tc.call()
		})
	}
}

func TestISA(t *testing.T) {
	require.Contains(t, []string{"avx512", "avx2", "neon", "go"}, ISA())
	require.Equal(t, levelGo, capLevel(levelAVX512, "go"))
	require.Equal(t, levelAVX2, capLevel(levelAVX512, " AVX2 "))
	require.Equal(t, levelAVX2, capLevel(levelAVX2, "avx512"), "the cap never raises the level")
	require.Equal(t, levelAVX512, capLevel(levelAVX512, "sse9"), "unknown values are ignored")
	require.Equal(t, levelAVX512, capLevel(levelAVX512, ""))
	for _, l := range supportedLevels() {
		restore := setLevel(l)
		require.Equal(t, l.String(), ISA())
		restore()
	}
}

// TestSgemmConcurrent runs products from several goroutines at once, each
// with several workers, so that shared buffers and counters are exercised
// (run with -race).
func TestSgemmConcurrent(t *testing.T) {
	seed := baseSeed(t)
	shapes := []shape{{70, 90, 300}, {129, 65, 40}, {31, 200, 64}, {300, 300, 300}}
	done := make(chan error, len(shapes))
	for i, s := range shapes {
		tc := newCase(seed+uint64(i), i%2 == 1, i >= 2, s.m, s.n, s.k, 1, 0.5, 2)
		want, tol := tc.reference()
		go func() {
			defer func() {
				if r := recover(); r != nil {
					done <- fmt.Errorf("%v", r)
				}
			}()
			for rep := 0; rep < 5; rep++ {
				c := append([]float32(nil), tc.c0...)
				sgemm(8, false, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc)
				for x := 0; x < tc.m*tc.n; x++ {
					got := float64(c[x/tc.n*tc.ldc+x%tc.n])
					if !(math.Abs(got-want[x]) <= tol[x]) {
						done <- fmt.Errorf("%s rep %d: element %d = %g, want %g", tc, rep, x, got, want[x])
						return
					}
				}
			}
			done <- nil
		}()
	}
	for range shapes {
		require.NoError(t, <-done)
	}
}

// TestSgemmAdaptive checks Sgemm, which adapts its thread count to a busy
// machine, both while the machine looks contended and while it does not.
func TestSgemmAdaptive(t *testing.T) {
	defer resetContention()
	tc := newCase(baseSeed(t), false, true, 130, 70, 300, 1, 0.5, 2)
	want, tol := tc.reference()
	for _, busy := range []bool{false, true} {
		resetContention()
		if busy {
			workpool.Hold(time.Now().Add(time.Hour))
		}
		c := append([]float32(nil), tc.c0...)
		Sgemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc)
		for x := range want {
			got := float64(c[x/tc.n*tc.ldc+x%tc.n])
			require.InDelta(t, want[x], got, tol[x], "%s busy=%v element %d", tc, busy, x)
		}
	}
}

// TestSgemmNarrow covers products with fewer columns than a tile and more
// rows, which are computed transposed, with alpha, beta and padded C rows.
func TestSgemmNarrow(t *testing.T) {
	shapes := []shape{{64, 10, 128}, {100, 3, 70}, {33, 15, 20}, {29, 1, 300}, {200, 7, 1000}}
	for _, ab := range [][2]float32{{1, 0}, {-1.5, 0.75}} {
		runCases(t, shapes, ab[0], ab[1], 5)
	}
}

func TestTransposeWins(t *testing.T) {
	if hwLevel < levelAVX512 {
		t.Skip("the cost model's choices are checked for the AVX-512 level")
	}
	im := implFor(levelAVX512)
	wins := func(transA, transB bool, m, n, k int) bool {
		p := &problem{transA: transA, transB: transB, m: m, n: n, k: k, lda: k, ldb: n}
		if transA {
			p.lda = m
		}
		if transB {
			p.ldb = k
		}
		return transposeWins(p, im)
	}
	require.True(t, wins(false, true, 64, 10, 128), "a batch through a 10-way layer")
	require.True(t, wins(false, true, 64, 128, 784), "x·W^T: W read in place, x transposed")
	require.True(t, wins(false, true, 64, 288, 910), "a convolution's weight gradient")
	require.False(t, wins(true, false, 10, 128, 64), "wide products keep their orientation")
	require.False(t, wins(true, false, 128, 784, 64), "x^T·dY: C too large for the buffer")
	require.False(t, wins(false, true, 9, 32, 4096), "few rows: more padding transposed")
	require.False(t, wins(false, false, 64, 128, 784), "both operands in place")
	require.False(t, wins(false, true, 1<<14, 5, 32), "C too large for the buffer")
}

// TestSgemmNonFinite puts ±Inf and NaN in A and NaN in C (beta 0, so C must
// not be read) and checks that exactly the affected rows come out non-finite,
// for a wide product and a narrow one (computed transposed).
func TestSgemmNonFinite(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	for _, s := range []shape{{40, 50, 30}, {64, 10, 128}} {
		forEachLevel(t, func(t *testing.T) {
			m, n, k := s.m, s.n, s.k
			a := make([]float32, m*k)
			b := make([]float32, k*n)
			for i := range a {
				a[i] = float32(i%7) - 3
			}
			for i := range b {
				b[i] = float32(i%5) + 1 // positive: Inf stays Inf
			}
			a[3*k+2], a[5*k+1], a[5*k+4], a[9*k] = inf, inf, -inf, nan
			c := make([]float32, m*n)
			for i := range c {
				c[i] = nan
			}
			sgemm(2, false, false, false, m, n, k, 1, a, k, b, n, 0, c, n)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					got := c[i*n+j]
					switch i {
					case 3:
						require.Equal(t, inf, got, "%v C[%d,%d]", s, i, j)
					case 5, 9: // Inf - Inf, and NaN
						require.True(t, math.IsNaN(float64(got)), "%v C[%d,%d] = %g, want NaN", s, i, j, got)
					default:
						require.False(t, math.IsNaN(float64(got)) || math.IsInf(float64(got), 0), "%v C[%d,%d] = %g", s, i, j, got)
					}
				}
			}
		})
	}
}

// TestSgemmSerialAllocs checks that serial products, the frequent small
// ones of a training step, allocate nothing once warm, in either
// orientation and with operands packed or in place.
func TestSgemmSerialAllocs(t *testing.T) {
	for _, s := range []namedShape{{"", false, false, 14, 32, 1}, {"", false, true, 64, 10, 128}, {"", true, false, 10, 128, 64}, {"", false, true, 64, 128, 784}, {"", true, true, 30, 70, 50}} {
		a, b, c := make([]float32, s.m*s.k), make([]float32, s.k*s.n), make([]float32, s.m*s.n)
		lda, ldb := s.lds()
		allocs := testing.AllocsPerRun(20, func() { // GOMAXPROCS is 1 while it runs
			SgemmThreads(2, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, b, ldb, 0.5, c, s.n)
		})
		require.Zero(t, allocs, "%+v", s)
	}
}

// TestSgemmRandomShapes checks random shapes, transposes, leading
// dimensions, alpha and beta on 1 to 3 workers, which lands products on
// every combination of packed and in-place operands, both orientations and
// per-worker shares.
func TestSgemmRandomShapes(t *testing.T) { checkRandomShapes(t) }

// TestSgemmRandomShapesCopying runs the random shapes with the copying
// kernels' thresholds lowered, so that every product that reads neither
// operand in place and transposes neither copies A while it computes.
func TestSgemmRandomShapesCopying(t *testing.T) {
	defer func(flops float64, threads int) { copyingMinFlops, copyingMinThreads = flops, threads }(copyingMinFlops, copyingMinThreads)
	copyingMinFlops, copyingMinThreads = 0, 1
	checkRandomShapes(t)
}

// checkRandomShapes checks random shapes, transposes, leading dimensions,
// alpha and beta on 1 to 3 workers against float64 references.
func checkRandomShapes(t *testing.T) {
	seed := baseSeed(t)
	rng := rand.New(rand.NewPCG(seed, 99))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	cases := 24
	if testing.Short() {
		cases = 8
	}
	alphas := []float32{1, -0.5, 2}
	betas := []float32{0, 1, 0.25}
	for i := range cases {
		m, n, k := 1+rng.IntN(200), 1+rng.IntN(300), 1+rng.IntN(700)
		if rng.IntN(3) == 0 {
			n = 1 + rng.IntN(20) // narrow: may be computed transposed
		}
		tc := newCase(seed+uint64(1000+i), rng.IntN(2) == 1, rng.IntN(2) == 1, m, n, k,
			alphas[rng.IntN(len(alphas))], betas[rng.IntN(len(betas))], rng.IntN(2)*7)
		want, tol := tc.reference()
		threads := 1 + rng.IntN(3)
		forEachLevel(t, func(t *testing.T) {
			runtime.GOMAXPROCS(max(threads, 2))
			tc.check(t, threads, want, tol)
		})
	}
}
