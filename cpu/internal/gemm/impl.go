package gemm

// microKernel computes one mr×nr tile of C = alpha*A*B + beta*C from k ≥ 1
// steps of packed panels: a holds k groups of mr floats (a column of the
// A panel each), b holds k groups of nr floats (a row of the B panel each). C
// rows start ldc floats apart at c[0], c[ldc], ...; beta == 0 writes C
// without reading it. Assembly kernels also prefetch, per kernelPrefetchSteps
// steps of k, one cache line into L2 from consecutive lines at address pf and
// one into L1 from consecutive lines at pfA (hints, never dereferenced by Go
// code).
type microKernel func(k int, a, b, c []float32, ldc int, alpha, beta float32, pf, pfA uintptr)

// kernelPrefetchSteps is how many k steps the assembly kernels run per
// prefetched line (their unroll factor).
const kernelPrefetchSteps = 4

// impl is one level's micro-kernel and the blocking that suits it.
type impl struct {
	mr, nr int
	kernel microKernel
	// rowKernels, when not nil, holds at index r < mr a kernel that
	// computes only the first r rows of a tile (for the last panel of A).
	rowKernels []microKernel
	// rowA, when not nil, holds at index r in 1..mr a kernel that reads
	// the first r rows of a tile of A in place from a row-major matrix
	// (rows lda floats apart, lda passed in place of pfA; see inplace.go).
	rowA []microKernel
	kc   int // largest depth of a cache block: a kc×mr panel of A stays in L1
	mc   int // rows per macro tile (at most)
	nc   int // columns per macro tile: a kc×nc block of B, and the next, stay in L2

	pack *packer
}

// asmKernelFunc is the signature of the assembly micro-kernels.
type asmKernelFunc = func(k int, a, b, c *float32, ldc int, alpha, beta float32, pf, pfA uintptr)

// asmKernel wraps an assembly micro-kernel that reads groups of mr floats of
// A and writes rows×nr of C, checking slice bounds once so that no argument
// can make the assembly touch memory outside its slices.
func asmKernel(f asmKernelFunc, mr, rows, nr int) microKernel {
	return func(k int, a, b, c []float32, ldc int, alpha, beta float32, pf, pfA uintptr) {
		_ = a[k*mr-1]
		_ = b[k*nr-1]
		_ = c[(rows-1)*ldc+nr-1]
		f(k, &a[0], &b[0], &c[0], ldc, alpha, beta, pf, pfA)
	}
}

// asmRowAKernels wraps a table of row-major-A assembly kernels indexed by
// rows (entry 0 unused), checking that the rows×k block of A (rows lda
// apart, lda passed as pfA) and the C tile lie inside their slices.
func asmRowAKernels(byRows []asmKernelFunc, nr int) []microKernel {
	ks := make([]microKernel, len(byRows))
	for r := 1; r < len(byRows); r++ {
		f, rows := byRows[r], r
		ks[r] = func(k int, a, b, c []float32, ldc int, alpha, beta float32, pf, lda uintptr) {
			_ = a[(rows-1)*int(lda)+k-1]
			_ = b[k*nr-1]
			_ = c[(rows-1)*ldc+nr-1]
			f(k, &a[0], &b[0], &c[0], ldc, alpha, beta, pf, lda)
		}
	}
	return ks
}

// asmKernels wraps a table of assembly kernels indexed by rows (entry 0
// unused) into the main kernel and the partial-row kernels.
func asmKernels(byRows []asmKernelFunc, nr int) (main microKernel, rows []microKernel) {
	mr := len(byRows) - 1
	rows = make([]microKernel, mr)
	for r := 1; r < mr; r++ {
		rows[r] = asmKernel(byRows[r], mr, r, nr)
	}
	return asmKernel(byRows[mr], mr, mr, nr), rows
}
