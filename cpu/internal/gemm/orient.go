package gemm

// A product can be computed as it is or transposed, C^T = op(B)^T·op(A)^T,
// into a buffer that is then transposed into C. The orientations differ in
// what they cost besides the FMAs of whole tiles:
//
//   - padding: a micro-kernel computes every row of a tile it is given (the
//     partial-row kernels compute 1..MR-1 rows without padding) but always
//     NR columns, so a product with few columns, like a batch of 64 through
//     a 10-way output layer (m=64, n=10), computes over three times its
//     FLOPs, and none transposed;
//   - packing: an operand read in place (inplace.go) costs nothing, a
//     packed one a copy or a transpose per element. A batch of 64 through a
//     784→128 layer, x·W^T, transposes all of W (100 352 elements) when
//     packing it as B; transposed, W is A and read in place, and x (50 176
//     elements) is transposed instead;
//   - the buffer: transposing C out (and in, when beta is not 0).
//
// orientationCost estimates these in units of a quarter cycle: 16 FMA lanes
// × 2 pipes per cycle for the FMAs, three quarters of a cycle per element
// transposed (16×16 register transposes, often from L2), a quarter per
// element copied, half a cycle per element of C through the buffer (also a
// register transpose). Calibrated single-threaded by thread CPU time
// (TestTuneOrientation): transposed, x·W^T for a batch of 64 through a
// 784→128 layer took 94.5 → 88.9 µs, through a 1600→128 layer 192 → 173,
// the CNN's conv2 weight gradient (m=64, n=288, k=910, beta 1) 258 → 219.
// Products narrower than a tile and taller (m=64, n=10: 4.6 → 2.5 µs) are
// always transposed: the estimate leaves out their ragged-tile merges.

// maxTransposedElems bounds the C buffer of a transposed product (floats).
const maxTransposedElems = 1 << 16

// orientationCost estimates the cost of p in its own orientation.
func orientationCost(p *problem, im *impl) int {
	fmas := p.m * ceilDiv(p.n, im.nr) * im.nr * p.k / 8
	pack := 0
	if !useRowA(p, im) && !useColA(p, im) {
		pack += p.m * p.k * packCost(!p.transA) // row-major A is transposed
	}
	if !useColB(p, im) || p.n%im.nr != 0 {
		pack += p.n * p.k * packCost(p.transB) // ragged panels are packed too
	}
	return fmas + pack
}

// packCost is the cost of packing an element by transposing it (true) or by
// copying it (false).
func packCost(transposing bool) int {
	if transposing {
		return 3
	}
	return 1
}

// transposed returns p as C^T = op(B)^T·op(A)^T, writing C^T into t (n×m).
func (p *problem) transposed(t []float32) *problem {
	return &problem{transA: !p.transB, transB: !p.transA, m: p.n, n: p.m, k: p.k, alpha: p.alpha,
		a: p.b, lda: p.ldb, b: p.a, ldb: p.lda, beta: p.beta, c: t, ldc: p.m}
}

// transposeWins reports whether p costs less computed transposed through a
// buffer: always when it is narrower than a tile and taller, else when the
// estimate is lower by a sixteenth.
func transposeWins(p *problem, im *impl) bool {
	if p.m*p.n > maxTransposedElems {
		return false
	}
	if p.n < im.nr && 2*ceilDiv(p.n, im.nr)*im.nr*p.m > 3*ceilDiv(p.m, im.nr)*im.nr*p.n {
		return true // padding dominates
	}
	through := p.m * p.n * 2
	if p.beta != 0 {
		through *= 2
	}
	q := p.transposed(nil)
	return 16*(orientationCost(q, im)+through) < 15*orientationCost(p, im)
}

// runTransposed computes p as C^T = op(B)^T·op(A)^T into a buffer holding
// C^T (n×m), which it fills from C first when beta is not 0.
func runTransposed(p *problem, im *impl, threads int, adaptive bool) {
	m, n := p.m, p.n
	buf := getBuf(m * n)
	t := buf.data
	if p.beta != 0 {
		im.pack.transpose(t, m, p.c, p.ldc, m, n)
	}
	run(p.transposed(t), im, threads, adaptive)
	im.pack.transpose(p.c, p.ldc, t, m, n, m)
	putBuf(buf)
}
