package gemm

import (
	"fmt"
	"unsafe"
)

// Products summed over shifted views of one buffer (SgemmTaps). A stride-1
// convolution's patch matrix repeats the input: the rows of kernel row kh
// are those of kernel row 0 shifted by kh input rows. Its product is then a
// sum over kernel rows of products whose B operands are one buffer at
// different offsets, and the buffer needs building only once. Each row
// panel of C sums all of them while it is in cache. B is read in place, as
// the colB kernels read it; A, the same for many products (a convolution's
// weights, for every image), is packed once (TapsA), so that the kernels
// read it as one sequential stream, prefetching the next block.

// TapsTile is the column granularity at which SgemmTaps reads B: every B_t
// must be readable for n columns rounded up to TapsTile (a multiple of every
// level's nr: 32, 16 and 12). The values read past n do not reach C.
const TapsTile = 96

// TapsReady reports whether SgemmTaps runs at the level in use, which needs
// micro-kernels reading B in place.
func TapsReady() bool { return implFor(active).taps != nil }

// TapsLeadingDim returns a leading dimension of at least n floats for B
// operands of SgemmTaps: n, or a cache line more when rows n floats apart
// would share their L1 sets.
func TapsLeadingDim(n int) int {
	if setBound(n) {
		return n + cacheLine/4
	}
	return n
}

// TapsA is the A operand of SgemmTaps: taps m×k matrices packed into the
// micro-kernels' row panels of the level in use when they were packed
// (Pack). Panel by panel, it holds each tap's k depth steps in turn, so the
// kernels of a row panel of C read it front to back.
type TapsA struct {
	m, k, taps int
	level      level
	data       []float32
}

// Pack packs into t, reusing its storage, the matrices A_t (t < taps) at
// a[t*k:], m×k with rows lda floats apart.
func (t *TapsA) Pack(m, k, taps int, a []float32, lda int) {
	if m < 0 || k < 0 || taps < 0 || (m > 0 && k*taps > 0 && (lda < taps*k || len(a) < (m-1)*lda+taps*k)) {
		panic(fmt.Sprintf("gemm.TapsA.Pack(m=%d, k=%d, taps=%d, lda=%d): a (len %d) does not hold the matrices", m, k, taps, lda, len(a)))
	}
	im := implFor(active)
	panels := (m + im.mr - 1) / im.mr
	t.m, t.k, t.taps, t.level = m, k, taps, active
	t.data = grow(t.data, panels*taps*k*im.mr)
	for p := 0; p < panels; p++ {
		rows := min(im.mr, m-p*im.mr)
		for tap := 0; tap < taps; tap++ {
			dst := t.data[(p*taps+tap)*k*im.mr:][:k*im.mr]
			im.pack.packAPanel(dst, a, lda, false, p*im.mr, rows, tap*k, k, im.mr)
		}
	}
}

// grow returns s resized to n elements, reusing its array when it is large
// enough.
func grow(s []float32, n int) []float32 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float32, n)
}

// SgemmTaps computes C = Σ_t A_t·B_t over the taps of a on the calling
// goroutine. B_t is the k×n matrix at b[bOff[t]:] with rows ldb apart, and
// C is m×n with rows ldc apart, written without being read. See TapsTile
// for how far B is read. It panics, naming the argument, when the slices are
// too short, the offsets are not one per tap, or a was packed at another
// level or the level has no kernels for it (TapsReady).
func SgemmTaps(n int, a *TapsA, b []float32, ldb int, bOff []int, c []float32, ldc int) {
	checkTaps(n, a, b, ldb, bOff, c, ldc)
	m, k := a.m, a.k
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || len(bOff) == 0 {
		scaleC(c, ldc, m, n, 0)
		return
	}
	im := implFor(active)
	kernels := im.taps
	full := n / im.nr * im.nr // the columns of whole tiles; a ragged last tile is summed in edge
	var edge []float32
	if full < n {
		edge = make([]float32, im.mr*im.nr)
	}
	base := uintptr(unsafe.Pointer(&a.data[0]))
	for i := 0; i < m; i += im.mr {
		rows := min(im.mr, m-i)
		kern := kernels[rows]
		beta := float32(0)
		first := i * a.taps * k // the panel's first float in a.data
		for t, off := range bOff {
			for p0 := 0; p0 < k; p0 += im.kc {
				kc := min(im.kc, k-p0)
				start := first + (t*k+p0)*im.mr
				ap, bp := a.data[start:], b[off+p0*ldb:]
				// The calls prefetch the next block of A (a hint: past the
				// end of a.data is harmless).
				next, perCall, lines := base+uintptr(start+kc*im.mr)*4, kc/kernelPrefetchSteps, kc*im.mr*4/cacheLine
				for j := 0; j < full; j += im.nr {
					kern(kc, ap, bp[j:], c[i*ldc+j:], ldc, 1, beta, uintptr(ldb), next+sweepPrefetch(j/im.nr, perCall, lines))
				}
				if full < n {
					kern(kc, ap, bp[full:], edge, im.nr, 1, beta, uintptr(ldb), next+sweepPrefetch(full/im.nr, perCall, lines))
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
func checkTaps(n int, a *TapsA, b []float32, ldb int, bOff []int, c []float32, ldc int) {
	fail := func(why string) {
		panic(fmt.Sprintf("gemm.SgemmTaps(m=%d, n=%d, k=%d, taps=%d, ldb=%d, offsets=%d, ldc=%d): %s", a.m, n, a.k, a.taps, ldb, len(bOff), ldc, why))
	}
	m, k := a.m, a.k
	switch {
	case n < 0:
		fail("negative dimension")
	case m == 0 || n == 0:
		return
	case !TapsReady():
		fail("the level " + ISA() + " has no kernels reading B in place")
	case a.level != active:
		fail("A was packed at the level " + a.level.String() + ", the level in use is " + ISA())
	case len(bOff) != a.taps:
		fail("one offset per tap needed")
	case ldc < n || len(c) < (m-1)*ldc+n:
		fail(fmt.Sprintf("c (len %d) does not hold %d rows of %d", len(c), m, n))
	case k == 0 || len(bOff) == 0:
		return
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
