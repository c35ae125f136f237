package gemm

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRowsAlias(t *testing.T) {
	require.False(t, rowsAlias(784, 256, 14), "a 784-wide input layer")
	require.False(t, rowsAlias(128, 256, 14))
	require.False(t, rowsAlias(9, 9, 14), "short rows share lines, not sets")
	require.True(t, rowsAlias(1024, 256, 14), "4 KiB apart: every row on the same sets")
	require.True(t, rowsAlias(512, 256, 14), "2 KiB apart: two sets of seven rows")
	require.False(t, rowsAlias(1024, 256, 4), "few rows fit the ways")
}

func TestUseRowA(t *testing.T) {
	im := &impl{mr: 14, nr: 32, kc: 256}
	im.kernels[inPlaceA][packedB] = make([]microKernel, 15)
	p := &problem{m: 64, n: 128, k: 784, lda: 784}
	require.True(t, useRowA(p, im))
	p.transA = true
	require.False(t, useRowA(p, im), "transposed A is packed by copying")
	p.transA, p.n = false, 1024
	require.False(t, useRowA(p, im), "wide products pack A")
	p.n, p.lda, p.k = 128, 1024, 1024
	require.False(t, useRowA(p, im), "aliasing rows pack A")
	require.False(t, useRowA(&problem{m: 64, n: 128, k: 784, lda: 784}, &impl{mr: 4, nr: 4, kc: 256}), "no rowA kernels")
}

func TestUseColB(t *testing.T) {
	im := &impl{mr: 14, nr: 32, kc: 256}
	im.kernels[packedA][inPlaceB] = make([]microKernel, 15)
	p := &problem{m: 64, n: 128, k: 784, ldb: 128}
	require.True(t, useColB(p, im))
	p.transB = true
	require.False(t, useColB(p, im), "transposed B is packed by transposing")
	p.transB, p.n, p.ldb = false, 20, 20
	require.False(t, useColB(p, im), "no full panel")
	p.n, p.ldb = 256, 256
	require.True(t, useColB(p, im), "products with few rows read B in place")
	p.m = 1000
	require.False(t, useColB(p, im), "tall products pack B")
	p.m = 64
	p.n, p.ldb = 1000, 1000
	require.False(t, useColB(p, im), "rows more than 1 KiB apart")
	p.n, p.ldb = 256, 257
	require.False(t, useColB(p, im), "rows just over 1 KiB apart")
	p.n, p.ldb = 100, 1024
	require.False(t, useColB(p, im), "rows 4 KiB apart")
	p.ldb = 512
	require.False(t, useColB(p, im), "rows 2 KiB apart")
	require.False(t, useColB(&problem{m: 64, n: 128, k: 784, ldb: 128}, &impl{mr: 4, nr: 4, kc: 256}), "no colB kernels")
}

func TestUseColA(t *testing.T) {
	im := &impl{mr: 14, nr: 32, kc: 256}
	im.kernels[colA][packedB] = make([]microKernel, 15)
	p := &problem{transA: true, m: 512, n: 128, k: 4096, lda: 512}
	require.True(t, useColA(p, im), "a weight gradient over a long batch")
	p.transA = false
	require.False(t, useColA(p, im), "row-major A is not stored transposed")
	p.transA, p.n = true, 1024
	require.False(t, useColA(p, im), "wide products pack A")
	require.False(t, useColA(&problem{transA: true, m: 64, n: 128, k: 784, lda: 64}, &impl{mr: 4, nr: 4, kc: 256}), "no colA kernels")
}

// TestSgemmColAAndPacked runs products that read a transposed A in place
// (with B packed, or its full panels in place too) next to the same shapes
// with colA off, with ragged rows and columns, leading dimensions with
// gaps (NaN, so a read outside the matrix shows), several depth blocks and
// super-blocks.
func TestSgemmColAAndPacked(t *testing.T) {
	seed := baseSeed(t)
	for i, s := range []shape{{512, 128, 2048}, {29, 50, 600}, {15, 33, 1030}, {100, 64, 70}, {13, 96, 300}, {300, 200, 9}} {
		for _, lda := range []int{s.m + 3, 512 * ceilDiv(s.m, 512)} {
			tc := newCase(seed+uint64(i), true, i%2 == 1, s.m, s.n, s.k, 1.25, 0.5, 2)
			tc.a, tc.lda = widen(tc.a, tc.lda, s.k, s.m, lda), lda
			want, tol := tc.reference()
			forEachLevel(t, func(t *testing.T) {
				defer func() { colAEnabled = true }()
				modes := []bool{true, false}
				if implFor(active).kernels[colA][packedB] == nil {
					modes = modes[:1] // colAEnabled changes nothing at this level
				}
				for _, on := range modes {
					colAEnabled = on
					for _, threads := range []int{1, 2} {
						tc.check(t, threads, want, tol)
					}
				}
			})
		}
	}
	checkSmallSuperBlocks(t, seed, true)
}

// TestSgemmColBAndPacked runs products that read B's full panels in place
// (with and without A in place, with a ragged last panel or none) next to
// the same shapes with a leading dimension that makes them pack B.
func TestSgemmColBAndPacked(t *testing.T) {
	seed := baseSeed(t)
	for i, s := range []shape{{64, 128, 784}, {29, 50, 600}, {128, 784, 64}, {100, 500, 70}, {13, 96, 300}} {
		for _, ldb := range []int{s.n + 5, 1024} {
			tc := newCase(seed+uint64(i), i%2 == 1, false, s.m, s.n, s.k, 0.75, -0.5, 2)
			tc.b, tc.ldb = widen(tc.b, tc.ldb, s.k, s.n, ldb), ldb
			want, tol := tc.reference()
			forEachLevel(t, func(t *testing.T) {
				for _, threads := range []int{1, 2} {
					tc.check(t, threads, want, tol)
				}
			})
		}
	}
}

// TestSgemmRowAAndPacked runs products that read A in place next to the
// same shapes with leading dimensions that make them pack A, with ragged
// rows and columns, several depth blocks and super-blocks.
func TestSgemmRowAAndPacked(t *testing.T) {
	seed := baseSeed(t)
	for i, s := range []shape{{64, 128, 784}, {29, 50, 600}, {15, 33, 1030}, {100, 500, 70}} {
		for _, lda := range []int{s.k + 3, 1024 * ceilDiv(s.k, 1024)} {
			tc := newCase(seed+uint64(i), false, i%2 == 1, s.m, s.n, s.k, 1.25, 0.5, 2)
			tc.a, tc.lda = widen(tc.a, tc.lda, s.m, s.k, lda), lda
			want, tol := tc.reference()
			forEachLevel(t, func(t *testing.T) {
				for _, threads := range []int{1, 2} {
					tc.check(t, threads, want, tol)
				}
			})
		}
	}
	checkSmallSuperBlocks(t, seed, false)
}

// widen copies the rows×cols matrix s (rows ld apart) into one with rows
// ld2 apart, filling the gaps with NaN so that a read outside the matrix
// shows.
func widen(s []float32, ld, rows, cols, ld2 int) []float32 {
	w := make([]float32, rows*ld2)
	for i := range w {
		w[i] = float32(math.NaN())
	}
	for r := 0; r < rows; r++ {
		copy(w[r*ld2:r*ld2+cols], s[r*ld:r*ld+cols])
	}
	return w
}

// checkSmallSuperBlocks runs a product, with A stored transposed or not, on
// two workers with super-blocks shrunk so that it spans several of them
// along every dimension.
func checkSmallSuperBlocks(t *testing.T, seed uint64, transA bool) {
	oldDepth, oldBudget := maxDepth, packBudget
	defer func() { maxDepth, packBudget = oldDepth, oldBudget }()
	maxDepth, packBudget = 70, 3000
	tc := newCase(seed+77, transA, false, 47, 90, 200, 1, 0, 3)
	want, tol := tc.reference()
	forEachLevel(t, func(t *testing.T) { tc.check(t, 2, want, tol) })
}
