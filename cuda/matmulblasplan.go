package cuda

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// blasGemm is one cublasSgemmStridedBatched call, in cuBLAS's column-major
// terms, that computes a row-major product C = A·B as Cᵀ = Bᵀ·Aᵀ: cuBLAS's
// first operand is our B (N x K), its second our A (K x M), and C is
// row-major [M, N] with leading dimension N (column-major N x M).
type blasGemm struct {
	transA, transB   bool  // cuBLAS's op on its first (our B) and second (our A) operand
	m, n, k          int   // cuBLAS's sizes: N, M, K
	lda, ldb, ldc    int   // leading dimensions
	offA, offB       int   // element offsets of our B and our A
	strideA, strideB int64 // batch strides of our B and our A
	strideC          int64 // M·N
	batch            int
}

// planBLAS returns the cuBLAS call that computes k's product, or false when
// cuBLAS cannot express it: an empty or K=0 product, a negative stride, an
// operand without a unit stride in one of its last two dimensions (or with
// a leading dimension smaller than cuBLAS allows), batch dimensions that do
// not merge into one uniform stride per operand, or sizes beyond cuBLAS's
// 32-bit ints.
func planBLAS(k *device.MatMulKernel) (blasGemm, bool) {
	if k.M == 0 || k.N == 0 || k.K == 0 || device.NumElements(k.Batch) == 0 {
		return blasGemm{}, false
	}
	for _, v := range []device.View{k.A, k.B} {
		for _, s := range v.Strides {
			if s < 0 {
				return blasGemm{}, false
			}
		}
	}
	nb := len(k.Batch)
	g := blasGemm{m: k.N, n: k.M, k: k.K, ldc: k.N, offA: k.B.Offset, offB: k.A.Offset,
		strideC: int64(k.M) * int64(k.N), batch: device.NumElements(k.Batch)}
	var okA, okB bool
	// cuBLAS's first operand: element (n, q) is our B[q, n].
	g.transA, g.lda, okA = blasMatrix(k.N, k.K, k.B.Strides[nb+1], k.B.Strides[nb])
	// cuBLAS's second operand: element (q, m) is our A[m, q].
	g.transB, g.ldb, okB = blasMatrix(k.K, k.M, k.A.Strides[nb+1], k.A.Strides[nb])
	if !okA || !okB {
		return blasGemm{}, false
	}
	out := device.ContiguousStrides(k.OutShape())[:nb]
	dims := mergeDims(k.Batch, [][]int{k.B.Strides[:nb], k.A.Strides[:nb], out})
	if len(dims) > 1 {
		return blasGemm{}, false
	}
	if len(dims) == 1 {
		g.strideA, g.strideB = int64(dims[0].strides[0]), int64(dims[0].strides[1])
	}
	for _, v := range []int{g.m, g.n, g.k, g.lda, g.ldb, g.ldc, g.batch} {
		if v > math.MaxInt32 {
			return blasGemm{}, false
		}
	}
	return g, true
}

// blasMatrix expresses an r x c matrix whose element (i, j) lies at i·si +
// j·sj as a cuBLAS operand: column-major with leading dimension ld (si is
// 1), or the transpose of a column-major c x r matrix (sj is 1). The
// stride of a dimension of size one is never used, so it is chosen to
// fit. It fails when neither stride is the unit one or the other is too
// small for cuBLAS (ld at least the stored matrix's rows).
func blasMatrix(r, c, si, sj int) (trans bool, ld int, ok bool) {
	if r == 1 {
		si = 1
	}
	if c == 1 && si == 1 {
		sj = r
	}
	if c == 1 && si != 1 {
		sj = 1
	}
	switch {
	case si == 1 && sj >= max(1, r):
		return false, sj, true
	case sj == 1 && si >= max(1, c):
		return true, si, true
	}
	return false, 0, false
}

// blasPolicy says which of the products cuBLAS can express go to it.
type blasPolicy uint8

const (
	blasBySize blasPolicy = iota // all but those preferGenerated keeps
	blasAlways                   // every one (tests)
	blasNever                    // none (tests)
)

// useBLAS reports whether k's product goes to cuBLAS under p.
func (p blasPolicy) useBLAS(k *device.MatMulKernel) bool {
	switch p {
	case blasAlways:
		return true
	case blasNever:
		return false
	}
	return !preferGenerated(k)
}

// preferGenerated reports whether the generated kernel serves k's product
// better than a cuBLAS call: a short reduction (K at most 128) of at most
// 2^27 flops, or, where an epilogue would follow cuBLAS as a second pass,
// K at most 256 and 2^25 flops, or any K and at most 2^24 flops. The
// generated kernel's blocks walk K alone, so long reductions into few
// tiles are slow on it, while a cuBLAS call costs the host several
// launches' time however small and an epilogue after it a second launch;
// in a training step, whose host is the bottleneck, a small fused product
// is worth more than its kernel's time (docs/cuda.md has the
// measurements).
func preferGenerated(k *device.MatMulKernel) bool {
	flops := 2 * float64(k.M) * float64(k.N) * float64(k.K) * float64(device.NumElements(k.Batch))
	switch {
	case k.K <= 128 && flops <= 1<<27:
		return true
	case isIdentityEpilogue(k):
		return false
	}
	return k.K <= 256 && flops <= 1<<25 || flops <= 1<<24
}

// isIdentityEpilogue reports whether k's epilogue stores the product alone,
// unchanged, to one float32 output, so cuBLAS can write that output itself.
func isIdentityEpilogue(k *device.MatMulKernel) bool { return identityStore(k.Epilogue, k.Outputs) }
