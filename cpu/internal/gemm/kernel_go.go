package gemm

// implGo is the portable level: a 4×4 micro-kernel in plain Go.
var implGo = impl{mr: 4, nr: 4, kernel: kernelGo4x4, kc: 256, mc: 64, nc: 256, pack: &goPacker}

// kernelGo4x4 is the pure-Go micro-kernel: sixteen scalar accumulators that
// the compiler keeps in registers. It ignores the prefetch hints.
func kernelGo4x4(k int, a, b, c []float32, ldc int, alpha, beta float32, _, _ uintptr) {
	a = a[:4*k]
	b = b[:4*k]
	var c00, c01, c02, c03, c10, c11, c12, c13 float32
	var c20, c21, c22, c23, c30, c31, c32, c33 float32
	for p := 0; p < len(a); p += 4 {
		av := a[p : p+4 : p+4]
		bv := b[p : p+4 : p+4]
		a0, a1, a2, a3 := av[0], av[1], av[2], av[3]
		b0, b1, b2, b3 := bv[0], bv[1], bv[2], bv[3]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	storeRow4(c[0:4:4], c00, c01, c02, c03, alpha, beta)
	storeRow4(c[ldc:ldc+4:ldc+4], c10, c11, c12, c13, alpha, beta)
	storeRow4(c[2*ldc:2*ldc+4:2*ldc+4], c20, c21, c22, c23, alpha, beta)
	storeRow4(c[3*ldc:3*ldc+4:3*ldc+4], c30, c31, c32, c33, alpha, beta)
}

// storeRow4 writes alpha*(x0..x3) + beta*row into row (beta == 0: no read).
func storeRow4(row []float32, x0, x1, x2, x3, alpha, beta float32) {
	row = row[:4]
	if beta == 0 {
		row[0], row[1], row[2], row[3] = alpha*x0, alpha*x1, alpha*x2, alpha*x3
		return
	}
	row[0] = alpha*x0 + beta*row[0]
	row[1] = alpha*x1 + beta*row[1]
	row[2] = alpha*x2 + beta*row[2]
	row[3] = alpha*x3 + beta*row[3]
}
