package gemm

import "fmt"

// validate panics if the arguments are inconsistent: negative sizes, leading
// dimensions narrower than the stored rows, or slices too short.
func (p *problem) validate() {
	if p.m < 0 || p.n < 0 || p.k < 0 {
		p.fail("negative dimension")
	}
	ar, ac := p.m, p.k // A as stored
	if p.transA {
		ar, ac = p.k, p.m
	}
	br, bc := p.k, p.n
	if p.transB {
		br, bc = p.n, p.k
	}
	p.checkOperand("a", p.a, p.lda, ar, ac)
	p.checkOperand("b", p.b, p.ldb, br, bc)
	p.checkOperand("c", p.c, p.ldc, p.m, p.n)
}

// checkOperand checks one stored rows×cols matrix with leading dimension ld.
func (p *problem) checkOperand(name string, s []float32, ld, rows, cols int) {
	if ld < max(cols, 1) {
		p.fail(fmt.Sprintf("ld%s = %d is less than the stored width %d", name, ld, max(cols, 1)))
	}
	if rows == 0 || cols == 0 {
		return
	}
	if need := (rows-1)*ld + cols; len(s) < need {
		p.fail(fmt.Sprintf("len(%s) = %d, need at least %d for a stored %d×%d matrix with ld%s = %d",
			name, len(s), need, rows, cols, name, ld))
	}
}

func (p *problem) fail(why string) {
	panic(fmt.Sprintf("gemm.Sgemm(transA=%v, transB=%v, m=%d, n=%d, k=%d, lda=%d, ldb=%d, ldc=%d): %s",
		p.transA, p.transB, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, why))
}
