//go:build !purego

package gemm

// implNEON is the arm64 level: the 8×12 NEON kernel and its partial-row
// variants on packed panels (products always pack A and B: there are no
// in-place or copying products on arm64), and the same reading B in place
// for SgemmTaps. The blocking is chosen on paper
// for Apple M-series and Neoverse cores (at least 64 KiB of L1D, 1 MiB or
// more of L2 per core): a 256×8 panel of A is 8 KiB, a 256×480 block of B
// 480 KiB.
var implNEON = func() impl {
	im := impl{mr: 8, nr: 12, kc: 256, mc: 128, nc: 480, pack: &neonPacker}
	im.kernels[packedA][packedB] = asmKernels(sgemmKernel8x12NEONByRows[:], im.nr, packedA, packedB)
	im.kernel = im.kernels[packedA][packedB][im.mr]
	im.taps = asmKernels(sgemmKernel8x12NEONColBByRows[:], im.nr, packedA, inPlaceB)
	return im
}()

// implFor returns the micro-kernel and blocking of level l.
func implFor(l level) *impl {
	if l == levelNEON {
		return &implNEON
	}
	return &implGo
}

// peakLoopFor returns level l's FMA throughput loop and its FLOPs per
// iteration.
func peakLoopFor(l level) (loop func(n int), flopsPerIter int) {
	if l == levelNEON {
		return fmaPeakNEON, flopsPerIterNEON
	}
	return fmaPeakGo, flopsPerIterGo
}
