package cpu

import "github.com/shaderflow/shaderflow/tensor/device"

// The three convolution modes as products of the sgemm seam, image by image
// so that each image's epilogue runs while its result is in cache.

// convForward: Y[n, g] = W_g · patches(X[n, g]), tile by tile.
func (d *Device) convForward(j *convJob) error {
	g := &j.g
	if j.direct {
		j.tile = g.outVol
	}
	per := g.o * g.outVol
	par, err := d.forImages(g.n, per*j.cgk, func(ws *workspace, n, threads int, par bool) {
		for gi := 0; gi < g.groups; gi++ {
			wg := j.w[gi*g.og*j.cgk:]
			for t0 := 0; t0 < g.outVol; t0 += j.tile {
				nt := min(j.tile, g.outVol-t0)
				b, ldb := j.patchesOf(ws, n, gi, t0, nt)
				c := j.res[(n*g.o+gi*g.og)*g.outVol+t0:]
				sgemm(threads, false, false, g.og, nt, j.cgk, 1, wg, j.cgk, b, ldb, 0, c, g.outVol)
			}
		}
		j.imageEpilogue(ws, n, per, par)
	})
	return d.finish(j, par, err)
}

// patchesOf returns the cgk×nt patch matrix of image n, group gi, output
// positions [t0, t0+nt), and its leading dimension: X itself for a direct
// convolution, else im2col into ws.col.
func (j *convJob) patchesOf(ws *workspace, n, gi, t0, nt int) ([]float32, int) {
	g := &j.g
	if j.direct {
		ld := j.xst[1]
		if g.cg == 1 {
			ld = nt
		}
		return j.x[j.xoff+n*j.xst[0]+gi*g.cg*j.xst[1]+t0:], ld
	}
	ws.col = grow(ws.col, j.cgk*nt)
	g.patches(false, ws.col, nt, 1, j.x, j.xoff, j.xst, n, gi*g.cg, t0, nt)
	return ws.col, nt
}

// convBackwardInput: dX[n, g] = col2im(W_gᵀ · dY[n, g]). Images are
// independent, so no two tasks add into one element. sgemm reads W_g
// transposed in place.
func (d *Device) convBackwardInput(j *convJob) error {
	g := &j.g
	direct := g.kVol == 1 && g.s == [3]int{1, 1, 1} && g.p == [3]int{}
	if direct {
		j.tile = g.outVol
	}
	per := g.c * g.inVol
	dxst := [5]int{g.c * g.inVol, g.inVol, g.in[1] * g.in[2], g.in[2], 1}
	par, err := d.forImages(g.n, g.o*j.cgk*g.outVol, func(ws *workspace, n, threads int, par bool) {
		if !direct {
			clear(j.res[n*per : (n+1)*per])
		}
		for gi := 0; gi < g.groups; gi++ {
			a := j.w[gi*g.og*j.cgk:] // [og, cgk]: op(A) = its transpose
			for t0 := 0; t0 < g.outVol; t0 += j.tile {
				nt := min(j.tile, g.outVol-t0)
				b := j.dy[(n*g.o+gi*g.og)*g.outVol+t0:]
				if direct { // the patch matrix is dX itself
					c := j.res[(n*g.c+gi*g.cg)*g.inVol+t0:]
					sgemm(threads, true, false, j.cgk, nt, g.og, 1, a, j.cgk, b, g.outVol, 0, c, g.inVol)
					continue
				}
				ws.col = grow(ws.col, j.cgk*nt)
				sgemm(threads, true, false, j.cgk, nt, g.og, 1, a, j.cgk, b, g.outVol, 0, ws.col, nt)
				g.patches(true, ws.col, nt, 1, j.res, 0, dxst, n, gi*g.cg, t0, nt)
			}
		}
		j.imageEpilogue(ws, n, per, par)
	})
	return d.finish(j, par, err)
}

// convBackwardWeight: dW_g = Σ_n dY[n, g] · patches(X[n, g])ᵀ. The output
// positions of all images, in order, are cut into chunks; each chunk is one
// product whose depth is the chunk's positions (patches and output
// gradients of consecutive images side by side), accumulated with beta = 1.
// Each worker takes a fixed run of chunks into its own copy of dW, so the
// sum is deterministic; the copies are added at the end.
func (d *Device) convBackwardWeight(j *convJob) error {
	g := &j.g
	size := g.o * j.cgk
	positions := g.n * g.outVol
	kc := min(positions, max(256, min(4096, (1<<18)/max(j.cgk, 1))))
	chunks := (positions + kc - 1) / kc
	parts := max(min(d.workers, chunks), 1)
	if d.serial(chunks, size*kc) {
		parts = 1
	}
	per := (chunks + parts - 1) / parts
	parts = (chunks + per - 1) / per
	threads := 1
	if parts == 1 && 2*size*kc >= gemmParallelFlops {
		threads = d.workers
	}
	d.scratch.f32c = grow(d.scratch.f32c, (parts-1)*size)
	dst := func(p int) []float32 {
		if p == 0 {
			return j.res
		}
		return d.scratch.f32c[(p-1)*size : p*size]
	}
	run := func(ws *workspace, p int) {
		for c := p * per; c < min(chunks, (p+1)*per); c++ {
			beta := float32(1)
			if c == p*per {
				beta = 0
			}
			j.weightChunk(ws, c*kc, min(positions, (c+1)*kc), dst(p), beta, threads)
		}
	}
	var err error
	if parts == 1 {
		ws := d.ws[0]
		err = safely(func() { run(ws, 0) })
	} else {
		err = d.parallelFor(parts, 1, func(w, lo, hi int) {
			for p := lo; p < hi; p++ {
				run(d.ws[w], p)
			}
		})
	}
	if err != nil {
		return err
	}
	for p := 1; p < parts; p++ {
		binaryF32[device.OpAdd](j.res, j.res, dst(p))
	}
	if j.epi != nil {
		return d.run(j.epi)
	}
	return nil
}

// weightChunk computes, for output positions [p0, p1) of all images taken
// in order, dst_g = dY_chunk · patchesᵀ + beta·dst_g for every group g.
func (j *convJob) weightChunk(ws *workspace, p0, p1 int, dst []float32, beta float32, threads int) {
	g := &j.g
	k := p1 - p0
	n0, t0 := p0/g.outVol, p0%g.outVol
	single := t0+k <= g.outVol // one image: dY is read in place
	ws.col = grow(ws.col, j.cgk*k)
	if !single {
		ws.tmp = grow(ws.tmp, g.og*k)
	}
	for gi := 0; gi < g.groups; gi++ {
		for pos := p0; pos < p1; {
			n, t := pos/g.outVol, pos%g.outVol
			nt := min(g.outVol-t, p1-pos)
			g.patches(false, ws.col[pos-p0:], k, 1, j.x, j.xoff, j.xst, n, gi*g.cg, t, nt)
			if !single {
				for o := 0; o < g.og; o++ {
					src := j.dy[(n*g.o+gi*g.og+o)*g.outVol+t:]
					copy(ws.tmp[o*k+pos-p0:o*k+pos-p0+nt], src[:nt])
				}
			}
			pos += nt
		}
		a, lda := ws.tmp, k
		if single {
			a, lda = j.dy[(n0*g.o+gi*g.og)*g.outVol+t0:], g.outVol
		}
		sgemm(threads, false, true, g.og, j.cgk, k, 1, a, lda, ws.col, k, beta, dst[gi*g.og*j.cgk:], j.cgk)
	}
}
