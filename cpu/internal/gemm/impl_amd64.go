//go:build !purego

package gemm

// The assembly levels' kernels and blocking.
var (
	implAVX512 = impl{mr: 14, nr: 32, kernel: asmKernel(sgemmKernel14x32AVX512, 14, 32), kc: 256, mc: 224, pack: &avx512Packer}
	implAVX2   = impl{mr: 6, nr: 16, kernel: asmKernel(sgemmKernel6x16AVX2, 6, 16), kc: 256, mc: 120, pack: &goPacker}
)

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
