package gemm

// macroTile computes the macro tile of block b whose first micro-panels are
// pi0 (rows) and pj0 (columns): for every cache block of depth kc, one kc×nr
// panel of B is reused from L1 across the tile's A panels, whose kc-deep
// block is reused from L2 across the tile's B panels.
func (s *shared) macroTile(b *block, pi0, pj0 int, tmp []float32) {
	p, im := s.p, s.im
	pi1 := min(pi0+b.tm, ceilDiv(b.rows, im.mr))
	pj1 := min(pj0+b.tn, ceilDiv(b.cols, im.nr))
	for pc := 0; pc < b.depth; pc += b.kc {
		kc := min(b.kc, b.depth-pc)
		beta := float32(1)
		if b.p0 == 0 && pc == 0 {
			beta = p.beta
		}
		if im.rowMajorTiles {
			for pi := pi0; pi < pi1; pi++ {
				for pj := pj0; pj < pj1; pj++ {
					s.microTile(b, pi, pj, pc, kc, beta, tmp)
				}
			}
			continue
		}
		for pj := pj0; pj < pj1; pj++ {
			for pi := pi0; pi < pi1; pi++ {
				s.microTile(b, pi, pj, pc, kc, beta, tmp)
			}
		}
	}
}

// microTile runs the micro-kernel on the tile of micro-panels (pi, pj) for
// depths [pc, pc+kc) of block b.
func (s *shared) microTile(b *block, pi, pj, pc, kc int, beta float32, tmp []float32) {
	p, im := s.p, s.im
	mr, nr := im.mr, im.nr
	bp := s.packB[pj*nr*b.depth+pc*nr:]
	ap := s.packA[pi*mr*b.depth+pc*mr:]
	i, j := b.i0+pi*mr, b.j0+pj*nr
	rows, cols := min(mr, b.i0+b.rows-i), min(nr, b.j0+b.cols-j)
	if cols == nr {
		switch {
		case rows == mr:
			im.kernel(kc, ap, bp, p.c[i*p.ldc+j:], p.ldc, p.alpha, beta)
			return
		case im.rowKernels != nil:
			im.rowKernels[rows](kc, ap, bp, p.c[i*p.ldc+j:], p.ldc, p.alpha, beta)
			return
		}
	}
	im.kernel(kc, ap, bp, tmp, nr, 1, 0)
	mergeEdge(p.c[i*p.ldc+j:], p.ldc, tmp, nr, rows, cols, p.alpha, beta)
}

// mergeEdge writes alpha*t + beta*c for the rows×cols corner of a ragged
// tile held in t (rows ldt floats apart); beta == 0 does not read c.
func mergeEdge(c []float32, ldc int, t []float32, ldt, rows, cols int, alpha, beta float32) {
	for r := 0; r < rows; r++ {
		cr := c[r*ldc : r*ldc+cols]
		tr := t[r*ldt : r*ldt+cols]
		if beta == 0 {
			for j, v := range tr {
				cr[j] = alpha * v
			}
			continue
		}
		for j, v := range tr {
			cr[j] = alpha*v + beta*cr[j]
		}
	}
}
