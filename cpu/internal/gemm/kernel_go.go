package gemm

// implGo is the portable level: a 2×4 micro-kernel in plain Go.
var implGo = impl{mr: 2, nr: 4, kernel: kernelGo2x4, kc: 256, mc: 64, nc: 256, pack: &goPacker}

// kernelGo2x4 is the pure-Go micro-kernel: eight scalar accumulators, two
// values of A and four of B per k step, four k steps per iteration.
//
// The shape suits the compiler rather than the arithmetic: on amd64 the
// Go compiler has 16 floating-point registers and schedules a step's
// multiplications before its additions, so a 4×4 tile (16 accumulators)
// spilled to the stack on every step, while 2×4 fits with its operands.
// Unrolling four steps and advancing the slices once per iteration leaves
// little besides the arithmetic in the loop: it runs about twice as fast as
// the 4×4 kernel did on amd64 (docs/arm64.md has the measurements). It
// ignores the prefetch hints.
func kernelGo2x4(k int, a, b, c []float32, ldc int, alpha, beta float32, _, _ uintptr) {
	a = a[:2*k]
	b = b[:4*k]
	var c00, c01, c02, c03, c10, c11, c12, c13 float32
	for len(a) >= 8 && len(b) >= 16 {
		{
			b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
			a0, a1 := a[0], a[1]
			c00 += a0 * b0
			c01 += a0 * b1
			c02 += a0 * b2
			c03 += a0 * b3
			c10 += a1 * b0
			c11 += a1 * b1
			c12 += a1 * b2
			c13 += a1 * b3
		}
		{
			b0, b1, b2, b3 := b[4], b[5], b[6], b[7]
			a0, a1 := a[2], a[3]
			c00 += a0 * b0
			c01 += a0 * b1
			c02 += a0 * b2
			c03 += a0 * b3
			c10 += a1 * b0
			c11 += a1 * b1
			c12 += a1 * b2
			c13 += a1 * b3
		}
		{
			b0, b1, b2, b3 := b[8], b[9], b[10], b[11]
			a0, a1 := a[4], a[5]
			c00 += a0 * b0
			c01 += a0 * b1
			c02 += a0 * b2
			c03 += a0 * b3
			c10 += a1 * b0
			c11 += a1 * b1
			c12 += a1 * b2
			c13 += a1 * b3
		}
		{
			b0, b1, b2, b3 := b[12], b[13], b[14], b[15]
			a0, a1 := a[6], a[7]
			c00 += a0 * b0
			c01 += a0 * b1
			c02 += a0 * b2
			c03 += a0 * b3
			c10 += a1 * b0
			c11 += a1 * b1
			c12 += a1 * b2
			c13 += a1 * b3
		}
		a, b = a[8:], b[16:]
	}
	for len(a) >= 2 && len(b) >= 4 {
		b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
		a0, a1 := a[0], a[1]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		a, b = a[2:], b[4:]
	}
	storeRow4(c[0:4:4], c00, c01, c02, c03, alpha, beta)
	storeRow4(c[ldc:ldc+4:ldc+4], c10, c11, c12, c13, alpha, beta)
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
