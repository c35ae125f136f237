package cpu

// sgemm is the matrix-product seam: C = A·B for row-major A (m×k, leading
// dimension lda), B (k×n, ldb) and C (m×n, ldc), with lda >= k, ldb >= n and
// ldc >= n. It overwrites C. An assembly layer may replace it at init time;
// the pure-Go default is sgemmGo. Callers split work across goroutines
// themselves, so an implementation must not assume it runs alone.
var sgemm = sgemmGo

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
