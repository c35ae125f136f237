//go:build !purego

package gemm

// The assembly levels' kernels and blocking.
var (
	implAVX512 = newAsmImpl(sgemmKernel14x32AVX512ByRows[:], 32,
		impl{kc: 256, mc: 112, nc: 512, pack: &avx512Packer})
	implAVX2 = newAsmImpl(sgemmKernel6x16AVX2ByRows[:], 16,
		impl{kc: 256, mc: 120, nc: 256, pack: &avx2Packer})
)

// newAsmImpl completes blocking with a kernel table indexed by rows.
func newAsmImpl(byRows []asmKernelFunc, nr int, blocking impl) impl {
	im := blocking
	im.mr, im.nr = len(byRows)-1, nr
	im.kernel, im.rowKernels = asmKernels(byRows, nr)
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
