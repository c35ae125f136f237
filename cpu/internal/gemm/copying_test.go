package gemm

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUseCopying(t *testing.T) {
	im := &impl{mr: 14, nr: 32, kc: 256}
	im.kernels[copyingA][packedB] = make([]microKernel, 15)
	p := &problem{m: 1024, n: 1024, k: 1024}
	require.True(t, useCopying(p, im, 2))
	require.False(t, useCopying(p, im, 1), "a serial product keeps the packing phase")
	p.transA = true
	require.False(t, useCopying(p, im, 2), "transposed A")
	p.transA, p.transB = false, true
	require.False(t, useCopying(p, im, 2), "transposed B")
	p.transB, p.m, p.n, p.k = false, 128, 128, 128
	require.False(t, useCopying(p, im, 2), "a small product keeps the packing phase")
	require.False(t, useCopying(&problem{m: 1024, n: 1024, k: 1024}, &impl{mr: 4, nr: 4, kc: 256}, 2), "no copying kernels")
	im.kc = 512
	require.False(t, useCopying(&problem{m: 1024, n: 1024, k: 1024}, im, 2), "A rows longer than a slot row")
}

func TestCopyJob(t *testing.T) {
	src := make([]float32, 10*40)
	for i := range src {
		src[i] = float32(i)
	}
	dst := make([]float32, 5*pieceFloats)
	j := newCopyJob(src, 3, 40, dst, 0, pieceFloats, 5)
	var q copyQueue
	q.add(j)
	q.add(newCopyJob(src, 0, 40, dst, 0, pieceFloats, 0)) // empty: dropped
	require.Len(t, q.jobs, 1)
	// A kernel that copied two of the three pieces offered.
	require.NotZero(t, q.take(3))
	require.Equal(t, 3, q.raw.count)
	require.Equal(t, 40*4, q.raw.sstride)
	q.raw.count = 1
	q.taken()
	require.Equal(t, 3, q.jobs[0].count)
	require.Equal(t, 3+2*40, q.jobs[0].so)
	q.finish() // copies the last three pieces in Go
	require.Empty(t, q.jobs)
	for p := 2; p < 5; p++ {
		for i := range pieceFloats {
			require.Equal(t, src[3+p*40+i], dst[p*pieceFloats+i], "piece %d lane %d", p, i)
		}
	}
	require.Panics(t, func() { newCopyJob(src, 3, 40, dst, 0, pieceFloats, 10) }, "source overrun")
	require.Panics(t, func() { newCopyJob(src, 0, 40, dst, 1, pieceFloats, 5) }, "destination overrun")
}

// copyingShapes are products computed with the copying kernels when the
// size threshold is lowered: more than 16 panels of A and of B (so neither
// operand is read in place), depths that are and are not a multiple of a
// piece, k = 1, ragged edges.
var copyingShapes = []shape{{250, 530, 300}, {229, 545, 517}, {240, 1024, 33}, {300, 600, 1}, {226, 545, 64}}

// TestSgemmCopying checks products computed with the copying kernels (at
// the levels that have them; the others compute the same products their
// own way) against float64 references, on 1 to 3 workers, with alpha and
// beta, NaN in C under beta = 0, padded leading dimensions, and super-blocks.
func TestSgemmCopying(t *testing.T) {
	defer func(flops float64, threads int) { copyingMinFlops, copyingMinThreads = flops, threads }(copyingMinFlops, copyingMinThreads)
	copyingMinFlops, copyingMinThreads = 0, 1
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	seed := baseSeed(t)
	im := implFor(levelAVX512)
	for i, s := range copyingShapes {
		for v, ab := range [][2]float32{{1, 0}, {-0.5, 0.25}, {2, 1}} {
			tc := newCase(seed+uint64(10*i+v), false, false, s.m, s.n, s.k, ab[0], ab[1], 7*v)
			p := &problem{m: s.m, n: s.n, k: s.k, lda: tc.lda, ldb: tc.ldb}
			if hwLevel >= levelAVX512 {
				require.True(t, !useRowA(p, im) && !useColB(p, im) && useCopying(p, im, 1), "%s is not copied", tc)
			}
			want, tol := tc.reference()
			forEachLevel(t, func(t *testing.T) {
				skipShortWithoutCopying(t)
				for _, threads := range []int{1, 2, 3} {
					tc.check(t, threads, want, tol)
				}
			})
		}
	}
}

// skipShortWithoutCopying skips, in -short mode, a level without copying
// kernels: its products of these shapes are the ones the other tests cover,
// and under emulation (arm64 on qemu) they cost minutes.
func skipShortWithoutCopying(t *testing.T) {
	if testing.Short() && implFor(active).kernels[copyingA][packedB] == nil {
		t.Skip("level " + active.String() + " has no copying kernels (its products are covered by the other tests)")
	}
}

// TestSgemmCopyingSuperBlocks runs copying products cut into super-blocks
// along every dimension.
func TestSgemmCopyingSuperBlocks(t *testing.T) {
	defer func(flops float64, threads int) { copyingMinFlops, copyingMinThreads = flops, threads }(copyingMinFlops, copyingMinThreads)
	copyingMinFlops, copyingMinThreads = 0, 1
	oldDepth, oldBudget := maxDepth, packBudget
	defer func() { maxDepth, packBudget = oldDepth, oldBudget }()
	maxDepth, packBudget = 200, 60000
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	seed := baseSeed(t)
	for i, s := range []shape{{250, 700, 450}, {300, 600, 130}} {
		tc := newCase(seed+uint64(i), false, false, s.m, s.n, s.k, 1, 0.5, 3)
		want, tol := tc.reference()
		forEachLevel(t, func(t *testing.T) {
			skipShortWithoutCopying(t)
			for _, threads := range []int{1, 2, 3} {
				tc.check(t, threads, want, tol)
			}
		})
	}
}
