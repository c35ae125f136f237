package gemm

import "runtime"

// parallelMinFlops is the smallest product (2*m*n*k) that Sgemm spreads over
// goroutines; smaller ones run on the caller's goroutine.
const parallelMinFlops = 1 << 21

// Sgemm computes C = alpha*op(A)*op(B) + beta*C for row-major matrices, on
// up to GOMAXPROCS goroutines. It adapts to a busy machine: after a product
// whose helper goroutines were held up by the operating system (more runnable
// threads than cores), products run on the caller's goroutine for a while.
//
// op(A) is m×k and op(B) is k×n; C is m×n with rows ldc floats apart. With
// transA false, A is stored m×k (element (i, p) at a[i*lda+p]); with transA
// true, A is stored k×m and op(A) = A^T (element (i, p) at a[p*lda+i]).
// transB selects the same for B (k×n, or n×k transposed). Leading dimensions
// may exceed the stored width, so strided views of either layout cost
// nothing. When beta is 0, C is written without being read (NaNs in C do not
// propagate); when k is 0 or alpha is 0, C is only scaled by beta. C must not
// overlap A or B.
//
// Invalid shapes, leading dimensions or slices too short for them panic with
// a message naming Sgemm and the arguments.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemm(runtime.GOMAXPROCS(0), true, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// SgemmThreads is Sgemm on at most threads goroutines (the caller's and
// pooled helpers, no more than GOMAXPROCS); threads ≤ 1 runs on the caller's
// goroutine only. A backend that already runs independent products in
// parallel passes 1. Like Sgemm, it runs products on the caller alone for a
// while after one whose helpers were held up by a busy machine. Products
// under about two million FLOPs always run on the caller's goroutine.
func SgemmThreads(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemm(threads, true, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// sgemm validates and runs a product on up to threads goroutines; adaptive
// products run serially while the machine looks contended (non-adaptive
// ones, used by tests, run on exactly min(threads, GOMAXPROCS) when large
// enough).
func sgemm(threads int, adaptive, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	p := &problem{transA: transA, transB: transB, m: m, n: n, k: k, alpha: alpha,
		a: a, lda: lda, b: b, ldb: ldb, beta: beta, c: c, ldc: ldc}
	p.validate()
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scaleC(c, ldc, m, n, beta)
		return
	}
	threads = min(threads, runtime.GOMAXPROCS(0))
	if float64(2*m)*float64(n)*float64(k) < parallelMinFlops || (adaptive && threads > 1 && contended()) {
		threads = 1
	}
	im := implFor(active)
	if transposeWins(p, im) {
		runTransposed(p, im, max(threads, 1), adaptive)
		return
	}
	run(p, im, max(threads, 1), adaptive)
}

// scaleC sets C = beta*C (beta == 0 writes zeros without reading C).
func scaleC(c []float32, ldc, m, n int, beta float32) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}
