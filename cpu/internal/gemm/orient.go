package gemm

// A micro-kernel computes every row of a tile it is given (the partial-row
// kernels compute 1..MR-1 rows without padding), but always NR columns: a
// product with few columns and more rows, like a batch of 64 through a
// 10-way output layer (m=64, n=10), would compute over three times its
// FLOPs. Such products are computed transposed, C^T = op(B)^T·op(A)^T, into
// a small buffer that is then transposed into C: the columns become rows,
// which cost no padding.

// maxTransposedElems bounds the C buffer of a transposed product (floats).
const maxTransposedElems = 1 << 16

// transposeWins reports whether an m×n product computes fewer padded
// elements transposed (by at least a third) and C is small enough to go
// through a buffer.
func transposeWins(m, n, nr int) bool {
	if m*n > maxTransposedElems || n >= nr {
		return false
	}
	return 2*ceilDiv(n, nr)*nr*m > 3*ceilDiv(m, nr)*nr*n
}

// runTransposed computes p as C^T = op(B)^T·op(A)^T into a buffer holding
// C^T (n×m), which it fills from C first when beta is not 0.
func runTransposed(p *problem, im *impl, threads int, adaptive bool) {
	m, n := p.m, p.n
	buf := getBuf(m * n)
	t := buf.data
	if p.beta != 0 {
		transposeInto(t, m, p.c, p.ldc, m, n)
	}
	q := &problem{transA: !p.transB, transB: !p.transA, m: n, n: m, k: p.k, alpha: p.alpha,
		a: p.b, lda: p.ldb, b: p.a, ldb: p.lda, beta: p.beta, c: t, ldc: m}
	run(q, im, threads, adaptive)
	transposeInto(p.c, p.ldc, t, m, n, m)
	putBuf(buf)
}

// transposeInto writes the cols×rows transpose of the rows×cols matrix src
// (rows lds apart) into dst (rows ldd apart).
func transposeInto(dst []float32, ldd int, src []float32, lds, rows, cols int) {
	for i := 0; i < rows; i++ {
		row := src[i*lds : i*lds+cols]
		for j, v := range row {
			dst[j*ldd+i] = v
		}
	}
}
