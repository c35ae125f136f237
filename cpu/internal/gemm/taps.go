package gemm

import "fmt"

// Products summed over shifted views of one buffer (SgemmTaps). A stride-1
// convolution's patch matrix repeats the input: the rows of kernel row kh
// are those of kernel row 0 shifted by kh input rows. Its product is then a
// sum over kernel rows of products whose B operands are one buffer at
// different offsets, and the buffer needs building only once. Each row
// panel of C sums all of them while it is in cache; A and B are read in
// place, as the rowA and colB kernels read them.

// TapsTile is the column granularity at which SgemmTaps reads B: every B_t
// must be readable for n columns rounded up to TapsTile (a multiple of every
// level's nr). The values read past n do not reach C.
const TapsTile = 32

// TapsReady reports whether SgemmTaps runs at the level in use, which needs
// micro-kernels reading both A and B in place.
func TapsReady() bool { return implFor(active).kernels[inPlaceA][inPlaceB] != nil }

// TapsLeadingDim returns the leading dimension to store an A of rows of
// width floats with for SgemmTaps: width, or a little more when rows that
// far apart would map onto the same L1 sets (see inplace.go).
func TapsLeadingDim(width int) int {
	im := implFor(active)
	ld := width
	for i := 0; i < l1Sets && rowsAlias(ld, min(width, im.kc), im.mr); i++ {
		ld += cacheLine / 4
	}
	return ld
}

// SgemmTaps computes C = Σ_t A_t·B_t over t < len(bOff) on the calling
// goroutine. A_t is the m×k matrix at a[t*k:] with rows lda floats apart,
// B_t the k×n matrix at b[bOff[t]:] with rows ldb apart, and C is m×n with
// rows ldc apart, written without being read. See TapsTile for how far B
// is read. It panics, naming the argument, when the slices are too short or
// the level has no in-place kernels (TapsReady).
func SgemmTaps(m, n, k int, a []float32, lda int, b []float32, ldb int, bOff []int, c []float32, ldc int) {
	checkTaps(m, n, k, a, lda, b, ldb, bOff, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || len(bOff) == 0 {
		scaleC(c, ldc, m, n, 0)
		return
	}
	im := implFor(active)
	kernels := im.kernels[inPlaceA][inPlaceB]
	full := n / im.nr * im.nr // the columns of whole tiles; a ragged last tile is summed in edge
	var edge []float32
	if full < n {
		edge = make([]float32, im.mr*im.nr)
	}
	for i := 0; i < m; i += im.mr {
		rows := min(im.mr, m-i)
		kern := kernels[rows]
		beta := float32(0)
		for t, off := range bOff {
			for p0 := 0; p0 < k; p0 += im.kc {
				kc := min(im.kc, k-p0)
				ap, bp := a[i*lda+t*k+p0:], b[off+p0*ldb:]
				for j := 0; j < full; j += im.nr {
					kern(kc, ap, bp[j:], c[i*ldc+j:], ldc, 1, beta, uintptr(ldb), uintptr(lda))
				}
				if full < n {
					kern(kc, ap, bp[full:], edge, im.nr, 1, beta, uintptr(ldb), uintptr(lda))
				}
				beta = 1
			}
		}
		if full < n {
			mergeEdge(c[i*ldc+full:], ldc, edge, im.nr, rows, n-full, 1, 0)
		}
	}
}

// checkTaps panics unless SgemmTaps's arguments are consistent and its
// slices long enough.
func checkTaps(m, n, k int, a []float32, lda int, b []float32, ldb int, bOff []int, c []float32, ldc int) {
	fail := func(why string) {
		panic(fmt.Sprintf("gemm.SgemmTaps(m=%d, n=%d, k=%d, lda=%d, ldb=%d, taps=%d, ldc=%d): %s", m, n, k, lda, ldb, len(bOff), ldc, why))
	}
	switch {
	case m < 0 || n < 0 || k < 0:
		fail("negative dimension")
	case m == 0 || n == 0:
		return
	case !TapsReady():
		fail("the level " + ISA() + " has no in-place kernels")
	case ldc < n || len(c) < (m-1)*ldc+n:
		fail(fmt.Sprintf("c (len %d) does not hold %d rows of %d", len(c), m, n))
	case k == 0 || len(bOff) == 0:
		return
	case lda < len(bOff)*k || len(a) < (m-1)*lda+len(bOff)*k:
		fail(fmt.Sprintf("a (len %d) does not hold %d rows of %d taps", len(a), m, len(bOff)))
	case ldb < 1:
		fail("ldb < 1")
	}
	cols := (n + TapsTile - 1) / TapsTile * TapsTile
	for t, off := range bOff {
		if off < 0 || off+(k-1)*ldb+cols > len(b) {
			fail(fmt.Sprintf("B of tap %d at offset %d needs %d floats, len(b) = %d", t, off, off+(k-1)*ldb+cols, len(b)))
		}
	}
}
