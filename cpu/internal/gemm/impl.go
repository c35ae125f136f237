package gemm

// microKernel computes one mr×nr tile of C = alpha*A*B + beta*C from k ≥ 1
// steps of packed panels: a holds k groups of mr floats (a column of the
// A panel each), b holds k groups of nr floats (a row of the B panel each). C
// rows start ldc floats apart at c[0], c[ldc], ...; beta == 0 writes C
// without reading it. Assembly kernels also prefetch, per kernelPrefetchSteps
// steps of k, one cache line into L2 from consecutive lines at address pf and
// one into L1 from consecutive lines at pfA (hints, never dereferenced by Go
// code). Kernels that read an operand in place take its leading dimension in
// the corresponding hint's place (see impl.kernels).
type microKernel func(k int, a, b, c []float32, ldc int, alpha, beta float32, pf, pfA uintptr)

// kernelPrefetchSteps is how many k steps the assembly kernels run per
// prefetched line (their unroll factor).
const kernelPrefetchSteps = 4

// Operand layouts a micro-kernel reads: A as packed panels, in place
// (row-major, rows lda apart: see inplace.go) or in place transposed
// (stored k×m, k steps lda apart), B as packed panels or in place
// (row-major, k steps ldb apart). In-place kernels take lda in the pfA
// argument and ldb in the pf argument instead of prefetch addresses.
//
// A third layout of A serves products that copy while they compute (see
// copying.go): A is read from a row-major block with rows copyARowFloats
// apart, and the pfA argument is the address of a copyPieces that the
// kernel advances by one piece per iteration of its unrolled k loop.
const (
	packedA  = 0
	inPlaceA = 1
	copyingA = 2
	colA     = 3
	packedB  = 0
	inPlaceB = 1
)

// impl is one level's micro-kernels and the blocking that suit them.
type impl struct {
	mr, nr int
	// kernel computes a whole tile from packed A and B; a pure-Go level
	// has only it and computes ragged tiles into a temporary.
	kernel microKernel
	// kernels, when not nil for a layout of A and B, holds at index r in
	// 1..mr a kernel that computes the first r rows of a tile.
	kernels [4][2][]microKernel
	// taps holds, like kernels, the kernels for packed A and B in place
	// that SgemmTaps calls: kernels[packedA][inPlaceB] where products read
	// B in place too, and on arm64 kernels that only SgemmTaps calls (the
	// NEON products pack B: reading it in place is unmeasured there).
	taps []microKernel
	kc   int // largest depth of a cache block: a kc×mr panel of A stays in L1
	mc   int // rows per macro tile (at most)
	nc   int // columns per macro tile: a kc×nc block of B, and the next, stay in L2

	pack *packer
}

// asmKernelFunc is the signature of the assembly micro-kernels.
type asmKernelFunc = func(k int, a, b, c *float32, ldc int, alpha, beta float32, pf, pfA uintptr)

// asmKernels wraps a table of assembly kernels indexed by rows (entry 0
// unused) that read A and B in the given layouts, checking slice bounds once
// per call so that no argument can make the assembly touch memory outside
// its slices: the rows×k block of A (k groups of mr floats packed, or rows
// lda apart in place), the k×nr block of B (k groups of nr floats packed,
// or k rows ldb apart in place) and the rows×nr tile of C. The pieces a
// copying kernel copies are checked when the copy is planned (copying.go).
func asmKernels(byRows []asmKernelFunc, nr, aLayout, bLayout int) []microKernel {
	mr := len(byRows) - 1
	ks := make([]microKernel, len(byRows))
	for r := 1; r <= mr; r++ {
		f, rows := byRows[r], r
		ks[r] = func(k int, a, b, c []float32, ldc int, alpha, beta float32, pf, pfA uintptr) {
			switch aLayout {
			case inPlaceA:
				_ = a[(rows-1)*int(pfA)+k-1]
			case colA:
				_ = a[(k-1)*int(pfA)+rows-1]
			case copyingA: // the copy's own pieces are checked when it is planned
				_ = a[(rows-1)*copyARowFloats+k-1]
			default:
				_ = a[k*mr-1]
			}
			if bLayout == inPlaceB {
				_ = b[(k-1)*int(pf)+nr-1]
			} else {
				_ = b[k*nr-1]
			}
			_ = c[(rows-1)*ldc+nr-1]
			f(k, &a[0], &b[0], &c[0], ldc, alpha, beta, pf, pfA)
		}
	}
	return ks
}
