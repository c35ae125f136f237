package cpu

import "github.com/shaderflow/shaderflow/cpu/internal/gemm"

// sgemmFunc computes C = alpha·op(A)·op(B) + beta·C for row-major
// matrices on up to threads goroutines (the caller's included), with the
// conventions of BLAS sgemm: op(A) is m×k, stored m×k (transA false, element
// (i, p) at a[i*lda+p]) or k×m (transA true, at a[p*lda+i]); op(B) is k×n,
// stored k×n or n×k likewise; C is m×n with rows ldc apart. With beta 0, C is
// written without being read. C must not overlap A or B.
type sgemmFunc func(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)

// sgemm is the matrix-product seam. Its pure-Go default is sgemmRef; init
// replaces it with the packed SIMD kernels of cpu/internal/gemm.
var sgemm sgemmFunc

// sgemmTaps computes C = Σ_t A_t·B_t on the caller's goroutine
// (gemm.SgemmTaps): A_t packed in a, B_t at b[bOff[t]:] (k×n, rows ldb
// apart, readable for n rounded up to gemm.TapsTile columns), C m×n with
// rows ldc apart, written without being read. It is nil where the level
// has no kernels for it: the convolutions then build patch matrices and
// skip Winograd's products.
var sgemmTaps func(n int, a *gemm.TapsA, b []float32, ldb int, bOff []int, c []float32, ldc int)

// sgemmRef is the portable reference product: transposed operands are
// copied to row-major form, the product is computed by sgemmGo on the
// caller's goroutine (threads is ignored), and alpha and beta are applied.
func sgemmRef(_ int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if transA {
		a, lda = transposed(a, lda, k, m), k
	}
	if transB {
		b, ldb = transposed(b, ldb, n, k), n
	}
	if alpha == 1 && beta == 0 {
		sgemmGo(m, n, k, a, lda, b, ldb, c, ldc)
		return
	}
	t := make([]float32, m*n)
	sgemmGo(m, n, k, a, lda, b, ldb, t, max(n, 1))
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			v := alpha * t[i*n+j]
			if beta != 0 {
				v += beta * c[i*ldc+j]
			}
			c[i*ldc+j] = v
		}
	}
}

// transposed returns the cols×rows row-major transpose of the rows×cols
// matrix stored in s with leading dimension ld.
func transposed(s []float32, ld, rows, cols int) []float32 {
	t := make([]float32, rows*cols)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			t[c*rows+r] = s[r*ld+c]
		}
	}
	return t
}

// Blocking of the pure-Go kernel: a kc×nc panel of B (256 KiB) stays in L2
// while four rows of C (nc floats each) stay in L1.
const (
	gemmKC = 256
	gemmNC = 256
)

// sgemmGo is the portable SGEMM: blocked over k and n, four rows of C at a
// time so each element of B loaded feeds four multiply-adds.
func sgemmGo(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		clear(c[i*ldc : i*ldc+n])
	}
	for p0 := 0; p0 < k; p0 += gemmKC {
		p1 := min(k, p0+gemmKC)
		for j0 := 0; j0 < n; j0 += gemmNC {
			j1 := min(n, j0+gemmNC)
			i := 0
			for ; i+4 <= m; i += 4 {
				gemmRows4(a[i*lda:], lda, b, ldb, c[i*ldc:], ldc, p0, p1, j0, j1)
			}
			for ; i < m; i++ {
				gemmRow1(a[i*lda:], b, ldb, c[i*ldc:], p0, p1, j0, j1)
			}
		}
	}
}

// gemmRows4 adds A[0:4, p0:p1] · B[p0:p1, j0:j1] to C[0:4, j0:j1].
func gemmRows4(a []float32, lda int, b []float32, ldb int, c []float32, ldc int, p0, p1, j0, j1 int) {
	w := j1 - j0
	c0 := c[j0:j1]
	c1 := c[ldc+j0 : ldc+j1]
	c2 := c[2*ldc+j0 : 2*ldc+j1]
	c3 := c[3*ldc+j0 : 3*ldc+j1]
	c1, c2, c3 = c1[:w], c2[:w], c3[:w]
	for p := p0; p < p1; p++ {
		a0, a1, a2, a3 := a[p], a[lda+p], a[2*lda+p], a[3*lda+p]
		bp := b[p*ldb+j0 : p*ldb+j1]
		bp = bp[:w]
		for j, bv := range bp {
			c0[j] += a0 * bv
			c1[j] += a1 * bv
			c2[j] += a2 * bv
			c3[j] += a3 * bv
		}
	}
}

// gemmRow1 adds A[0, p0:p1] · B[p0:p1, j0:j1] to C[0, j0:j1].
func gemmRow1(a, b []float32, ldb int, c []float32, p0, p1, j0, j1 int) {
	c0 := c[j0:j1]
	for p := p0; p < p1; p++ {
		av := a[p]
		bp := b[p*ldb+j0 : p*ldb+j1]
		bp = bp[:len(c0)]
		for j, bv := range bp {
			c0[j] += av * bv
		}
	}
}
