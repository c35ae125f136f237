package gemm

// Packing copies a block of A or B into the panel layout the micro-kernels
// read: a panel of width w (mr rows of A, or nr columns of B) over depth
// steps is depth groups of w consecutive floats. Lanes past the matrix edge
// are zero, so a ragged tile computes zeros there.

// packAPanel packs rows [i0, i0+rows) of op(A) over depths [p0, p0+depth)
// into dst (depth*mr floats).
func packAPanel(dst []float32, a []float32, lda int, transA bool, i0, rows, p0, depth, mr int) {
	if transA { // op(A)[i, p] = a[p*lda + i]: each depth step is contiguous
		packContig(dst, mr, a, lda, p0*lda+i0, depth, rows)
		return
	}
	packStrided(dst, mr, a, lda, i0*lda+p0, depth, rows)
}

// packBPanel packs columns [j0, j0+cols) of op(B) over depths [p0, p0+depth)
// into dst (depth*nr floats).
func packBPanel(dst []float32, b []float32, ldb int, transB bool, j0, cols, p0, depth, nr int) {
	if transB { // op(B)[p, j] = b[j*ldb + p]: each column is contiguous
		packStrided(dst, nr, b, ldb, j0*ldb+p0, depth, cols)
		return
	}
	packContig(dst, nr, b, ldb, p0*ldb+j0, depth, cols)
}

// packContig packs depth groups where group p is src[off+p*ld : off+p*ld+width],
// padded with zeros to w.
func packContig(dst []float32, w int, src []float32, ld, off, depth, width int) {
	dst = dst[:depth*w]
	for p := 0; p < depth; p++ {
		g := dst[p*w : p*w+w]
		copy(g, src[off+p*ld:off+p*ld+width])
		clear(g[width:])
	}
}

// packStrided packs depth groups where lane r of group p is
// src[off+r*ld+p], padded with zeros to w: a transpose.
func packStrided(dst []float32, w int, src []float32, ld, off, depth, width int) {
	dst = dst[:depth*w]
	for r := 0; r < width; r++ {
		line := src[off+r*ld : off+r*ld+depth]
		for p, v := range line {
			dst[p*w+r] = v
		}
	}
	if width < w {
		for p := 0; p < depth; p++ {
			clear(dst[p*w+width : p*w+w])
		}
	}
}
