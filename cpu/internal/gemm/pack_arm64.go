//go:build !purego

package gemm

// neonPacker transposes with the 4×4 NEON register transpose and copies
// panels with Go's copy (the runtime's memmove is already vectorized).
var neonPacker = packer{strided: packStridedNEON, panels: packPanelsGo, transpose: transposeNEON}

// transpose4 writes dst[p*w+r] = src[off+r*ld+p] for p < depth and
// r < lines, four lines at a time in assembly and the rest in Go. The
// caller has checked that every line read lies inside src and every group
// written inside dst.
func transpose4(dst []float32, w int, src []float32, ld, off, depth, lines int) {
	d4 := depth &^ 3
	r := 0
	for ; r+4 <= lines && d4 > 0; r += 4 {
		_ = src[off+(r+3)*ld+d4-1]
		_ = dst[(d4-1)*w+r+3]
		packTranspose4NEON(&dst[r], w, &src[off+r*ld], ld, d4)
	}
	for q := 0; q < lines; q++ {
		p0 := d4
		if q >= r {
			p0 = 0
		}
		line := src[off+q*ld : off+q*ld+depth]
		for p := p0; p < depth; p++ {
			dst[p*w+q] = line[p]
		}
	}
}

// packStridedNEON is packer.strided with the NEON transpose.
func packStridedNEON(dst []float32, w int, src []float32, ld, off, depth, width int) {
	dst = dst[:depth*w]
	if depth == 0 {
		return
	}
	if width > 0 {
		_ = src[off+(width-1)*ld+depth-1]
		transpose4(dst, w, src, ld, off, depth, width)
	}
	zeroLanes(dst, w, width, depth)
}

// transposeNEON is packer.transpose with the NEON transpose: lines of src
// become columns of dst.
func transposeNEON(dst []float32, ldd int, src []float32, lds, rows, cols int) {
	if rows == 0 || cols == 0 {
		return
	}
	_ = src[(rows-1)*lds+cols-1]
	_ = dst[(cols-1)*ldd+rows-1]
	transpose4(dst, ldd, src, lds, 0, cols, rows)
}
