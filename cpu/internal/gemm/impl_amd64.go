//go:build !purego

package gemm

// The assembly levels' kernels and blocking.
var (
	implAVX512 = newAsmImpl(sgemmKernel14x32AVX512ByRows[:], sgemmKernel14x32AVX512RowAByRows[:], 32,
		impl{kc: 256, mc: 112, nc: 512, pack: &avx512Packer})
	implAVX2 = newAsmImpl(sgemmKernel6x16AVX2ByRows[:], sgemmKernel6x16AVX2RowAByRows[:], 16,
		impl{kc: 256, mc: 120, nc: 256, pack: &avx2Packer})
)

// newAsmImpl completes blocking with kernel tables indexed by rows: packed
// A, and row-major A in place.
func newAsmImpl(byRows, rowA []asmKernelFunc, nr int, blocking impl) impl {
	im := blocking
	im.mr, im.nr = len(byRows)-1, nr
	im.kernel, im.rowKernels = asmKernels(byRows, nr)
	im.rowA = asmRowAKernels(rowA, nr)
	return im
}

// implFor returns the micro-kernel and blocking of level l.
func implFor(l level) *impl {
	switch l {
	case levelAVX512:
		return &implAVX512
	case levelAVX2:
		return &implAVX2
	}
	return &implGo
}

// peakLoopFor returns level l's FMA throughput loop and its FLOPs per
// iteration.
func peakLoopFor(l level) (loop func(n int), flopsPerIter int) {
	switch l {
	case levelAVX512:
		return fmaPeakAVX512, flopsPerIterAVX512
	case levelAVX2:
		return fmaPeakAVX2, flopsPerIterAVX2
	}
	return fmaPeakGo, flopsPerIterGo
}
