//go:build !purego

package gemm

// The assembly packers: register transposes (16×16 zmm, 8×8 ymm) and vector
// copies. The wrappers check bounds once so that the assembly stays inside
// its slices.
var (
	avx512Packer = packer{
		strided:   asmStrided(packTranspose16AVX512, 16),
		panels:    asmPanels(packCopyAVX512),
		transpose: asmTranspose(packTranspose16AVX512, 16),
	}
	avx2Packer = packer{
		strided:   asmStrided(packTranspose8AVX2, 8),
		panels:    asmPanels(packCopyAVX2),
		transpose: asmTranspose(packTranspose8AVX2, 8),
	}
)

// asmStrided wraps a transpose routine that handles up to lanes lines per
// call into packer.strided.
func asmStrided(f func(dst *float32, w int, src *float32, ld, depth, lines int), lanes int) func(dst []float32, w int, src []float32, ld, off, depth, width int) {
	return func(dst []float32, w int, src []float32, ld, off, depth, width int) {
		dst = dst[:depth*w]
		if depth == 0 {
			return
		}
		if width > 0 {
			_ = src[off+(width-1)*ld+depth-1] // every line read lies inside src
			_ = dst[(depth-1)*w+width-1]
			for lb := 0; lb < width; lb += lanes {
				f(&dst[lb], w, &src[off+lb*ld], ld, depth, min(lanes, width-lb))
			}
		}
		zeroLanes(dst, w, width, depth)
	}
}

// asmTranspose wraps a transpose routine that handles up to lanes lines per
// call (writing only lanes r < lines of each group) into packer.transpose:
// lines of src become columns of dst.
func asmTranspose(f func(dst *float32, w int, src *float32, ld, depth, lines int), lanes int) func(dst []float32, ldd int, src []float32, lds, rows, cols int) {
	return func(dst []float32, ldd int, src []float32, lds, rows, cols int) {
		if rows == 0 || cols == 0 {
			return
		}
		_ = src[(rows-1)*lds+cols-1]
		_ = dst[(cols-1)*ldd+rows-1]
		for i := 0; i < rows; i += lanes {
			f(&dst[i], ldd, &src[i*lds], lds, cols, min(lanes, rows-i))
		}
	}
}

// asmPanels wraps a copy routine (1 ≤ w ≤ 64) into packer.panels.
func asmPanels(f func(dst *float32, w, pstride int, src *float32, ld, depth, np int)) func(dst []float32, w, pstride int, src []float32, ld, off, depth, np int) {
	return func(dst []float32, w, pstride int, src []float32, ld, off, depth, np int) {
		if depth == 0 || np == 0 {
			return
		}
		if w > 64 {
			packPanelsGo(dst, w, pstride, src, ld, off, depth, np)
			return
		}
		_ = src[off+(depth-1)*ld+np*w-1]
		_ = dst[(np-1)*pstride+depth*w-1]
		f(&dst[0], w, pstride, &src[off], ld, depth, np)
	}
}
