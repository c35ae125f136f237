//go:build !purego

package gemm

// The assembly levels' kernels and blocking.
var (
	implAVX512 = newAsmImpl([4][2][]asmKernelFunc{
		{sgemmKernel14x32AVX512ByRows[:], sgemmKernel14x32AVX512ColBByRows[:]},
		{sgemmKernel14x32AVX512RowAByRows[:], sgemmKernel14x32AVX512RowAColBByRows[:]},
		{sgemmKernel14x32AVX512CopyByRows[:], nil},
		{sgemmKernel14x32AVX512ColAByRows[:], sgemmKernel14x32AVX512ColAColBByRows[:]},
	}, impl{nr: 32, kc: 256, mc: 112, nc: 512, pack: &avx512Packer})
	implAVX2 = newAsmImpl([4][2][]asmKernelFunc{
		{sgemmKernel6x16AVX2ByRows[:], sgemmKernel6x16AVX2ColBByRows[:]},
		{sgemmKernel6x16AVX2RowAByRows[:], sgemmKernel6x16AVX2RowAColBByRows[:]},
		{},
		{sgemmKernel6x16AVX2ColAByRows[:], sgemmKernel6x16AVX2ColAColBByRows[:]},
	}, impl{nr: 16, kc: 256, mc: 120, nc: 256, pack: &avx2Packer})
)

// newAsmImpl completes blocking with the kernel tables indexed by rows, per
// layout of A and B (nil: the level has no such kernels).
func newAsmImpl(byLayout [4][2][]asmKernelFunc, blocking impl) impl {
	im := blocking
	im.mr = len(byLayout[packedA][packedB]) - 1
	for a := range byLayout {
		for b := range byLayout[a] {
			if byLayout[a][b] != nil {
				im.kernels[a][b] = asmKernels(byLayout[a][b], im.nr, a, b)
			}
		}
	}
	im.kernel = im.kernels[packedA][packedB][im.mr]
	im.taps = im.kernels[packedA][inPlaceB]
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
