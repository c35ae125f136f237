//go:build !purego

package gemm

// avx512Packer packs with AVX-512: 16×16 register transposes and masked
// vector copies.
var avx512Packer = packer{strided: packStridedAVX512, panels: packPanelsAVX512}

// packStridedAVX512 is packer.strided with 16×16 transposes.
func packStridedAVX512(dst []float32, w int, src []float32, ld, off, depth, width int) {
	dst = dst[:depth*w]
	if depth == 0 {
		return
	}
	if width > 0 {
		_ = src[off+(width-1)*ld+depth-1] // every line read lies inside src
		_ = dst[(depth-1)*w+width-1]
		for lb := 0; lb < width; lb += 16 {
			packTranspose16AVX512(&dst[lb], w, &src[off+lb*ld], ld, depth, min(16, width-lb))
		}
	}
	zeroLanes(dst, w, width, depth)
}

// packPanelsAVX512 is packer.panels with vector copies.
func packPanelsAVX512(dst []float32, w, pstride int, src []float32, ld, off, depth, np int) {
	if depth == 0 || np == 0 {
		return
	}
	if w > 64 {
		packPanelsGo(dst, w, pstride, src, ld, off, depth, np)
		return
	}
	_ = src[off+(depth-1)*ld+np*w-1]
	_ = dst[(np-1)*pstride+depth*w-1]
	packCopyAVX512(&dst[0], w, pstride, &src[off], ld, depth, np)
}
