package gemm

// Packing copies a block of A or B into the panel layout the micro-kernels
// read: a panel of width w (mr rows of A, or nr columns of B) over depth
// steps is depth groups of w consecutive floats. Lanes past the matrix edge
// are zero, so a ragged tile computes zeros there.

// packer holds one level's packing primitives.
type packer struct {
	// strided packs depth groups where lane r < width of group p is
	// src[off+r*ld+p], zero-padding lanes [width, w): a transpose.
	strided func(dst []float32, w int, src []float32, ld, off, depth, width int)
	// panels packs np whole panels of w columns of a row-major matrix:
	// group p of panel q (at dst[q*pstride+p*w]) is src[off+p*ld+q*w:][:w].
	panels func(dst []float32, w, pstride int, src []float32, ld, off, depth, np int)
	// transpose writes the cols×rows transpose of the rows×cols matrix src
	// (rows lds apart) into dst (rows ldd apart).
	transpose func(dst []float32, ldd int, src []float32, lds, rows, cols int)
}

// goPacker is the portable packer.
var goPacker = packer{strided: packStridedGo, panels: packPanelsGo, transpose: transposeGo}

// transposeGo is packer.transpose in Go.
func transposeGo(dst []float32, ldd int, src []float32, lds, rows, cols int) {
	for i := 0; i < rows; i++ {
		row := src[i*lds : i*lds+cols]
		for j, v := range row {
			dst[j*ldd+i] = v
		}
	}
}

// packAPanel packs rows [i0, i0+rows) of op(A) over depths [p0, p0+depth)
// into dst (depth*mr floats).
func (pk *packer) packAPanel(dst []float32, a []float32, lda int, transA bool, i0, rows, p0, depth, mr int) {
	switch {
	case !transA: // op(A)[i, p] = a[i*lda + p]: a transpose
		pk.strided(dst, mr, a, lda, i0*lda+p0, depth, rows)
	case rows == mr: // op(A)[i, p] = a[p*lda + i]: each depth step is contiguous
		pk.panels(dst, mr, 0, a, lda, p0*lda+i0, depth, 1)
	default:
		packContig(dst, mr, a, lda, p0*lda+i0, depth, rows)
	}
}

// packBPanels packs columns [j0, j0+cols) of op(B) over depths
// [p0, p0+depth) into ceil(cols/nr) consecutive panels of depth*nr floats.
func (pk *packer) packBPanels(dst []float32, b []float32, ldb int, transB bool, j0, cols, p0, depth, nr int) {
	pk.packBPanelsStrided(dst, depth*nr, b, ldb, transB, j0, cols, p0, depth, nr)
}

// packBPanelsStrided is packBPanels with the panels pstride floats apart
// in dst: a depth block of panels that are deeper than it.
func (pk *packer) packBPanelsStrided(dst []float32, pstride int, b []float32, ldb int, transB bool, j0, cols, p0, depth, nr int) {
	if transB { // op(B)[p, j] = b[j*ldb + p]: each column is contiguous
		for j := 0; j < cols; j += nr {
			pk.strided(dst[j/nr*pstride:], nr, b, ldb, (j0+j)*ldb+p0, depth, min(nr, cols-j))
		}
		return
	}
	full := cols / nr
	if full > 0 {
		pk.panels(dst, nr, pstride, b, ldb, p0*ldb+j0, depth, full)
	}
	if j := full * nr; j < cols {
		packContig(dst[full*pstride:], nr, b, ldb, p0*ldb+j0+j, depth, cols-j)
	}
}

// packContig packs depth groups where group p is src[off+p*ld:][:width],
// zero-padded to w.
func packContig(dst []float32, w int, src []float32, ld, off, depth, width int) {
	dst = dst[:depth*w]
	for p := 0; p < depth; p++ {
		g := dst[p*w : p*w+w]
		copy(g, src[off+p*ld:off+p*ld+width])
		clear(g[width:])
	}
}

// packPanelsGo is packer.panels in Go.
func packPanelsGo(dst []float32, w, pstride int, src []float32, ld, off, depth, np int) {
	for p := 0; p < depth; p++ {
		row := src[off+p*ld : off+p*ld+np*w]
		for q := 0; q < np; q++ {
			copy(dst[q*pstride+p*w:q*pstride+p*w+w], row[q*w:])
		}
	}
}

// packStridedGo is packer.strided in Go.
func packStridedGo(dst []float32, w int, src []float32, ld, off, depth, width int) {
	dst = dst[:depth*w]
	for r := 0; r < width; r++ {
		line := src[off+r*ld : off+r*ld+depth]
		for p, v := range line {
			dst[p*w+r] = v
		}
	}
	zeroLanes(dst, w, width, depth)
}

// zeroLanes clears lanes [width, w) of depth groups of w floats.
func zeroLanes(dst []float32, w, width, depth int) {
	if width >= w {
		return
	}
	for p := 0; p < depth; p++ {
		clear(dst[p*w+width : p*w+w])
	}
}
