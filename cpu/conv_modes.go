package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// The three convolution modes as products of the sgemm seam. Forward and
// input-gradient products run per image, or per few images side by side
// when images are small (so each product is wide enough to run sgemm at
// speed); each image group's epilogue runs while its result is in cache.

// batchCols is the product width below which small images are batched.
const batchCols = 512

// minImageChunk is the fewest output positions of an image that make it a
// weight-gradient chunk of its own (convBackwardWeight).
const minImageChunk = 256

// imagesPerCall returns how many images one forward or input-gradient
// product covers on workers workers: one, unless whole images fit a patch
// matrix and are narrower than batchCols. A patch matrix may hold
// patchBudget floats, or as many as the weights when they are larger, so
// that the product's packing of the weights is spread over enough columns;
// the count is then evened out by balanceImages.
func (j *convJob) imagesPerCall(workers int) int {
	g := &j.g
	if j.direct || j.tile < g.outVol || g.outVol >= batchCols/2 {
		return 1
	}
	ic := max(1, min(g.n, batchCols/g.outVol, max(patchBudget, g.og*j.cgk)/max(j.cgk*g.outVol, 1)))
	return balanceImages(g.n, ic, workers)
}

// balanceImages returns how many of n images each product covers, at most
// ic, so that the products come in a multiple of the workers: they run in
// parallel over images, and no worker should be left with more images than
// the others.
func balanceImages(n, ic, workers int) int {
	groups := (n + ic - 1) / ic
	if workers < 2 || groups < 2 {
		return ic
	}
	groups = (groups + workers - 1) / workers * workers
	return (n + groups - 1) / groups
}

// forwardImagesPerCall is imagesPerCall for the forward convolution, which
// takes one image a product wherever its products can sum over kernel rows
// from row patches (usesTaps): small images too, whose patch matrices
// would otherwise go side by side, a copy the row patches avoid (measured
// in docs/cpu-speed.md, "Small images' forward from row patches").
func (j *convJob) forwardImagesPerCall(workers int) int {
	if j.usesTaps() {
		return 1
	}
	return j.imagesPerCall(workers)
}

// convForward: Y[n, g] = W_g · patches(X[n, g]), tile by tile, or for
// several images at once.
func (d *Device) convForward(j *convJob) error {
	g := &j.g
	if p, ok := j.winograd(d.workers); ok {
		return d.convWinograd(j, p)
	}
	if j.direct {
		j.tile = g.outVol
	}
	per := g.o * g.outVol
	ic := j.forwardImagesPerCall(d.workers)
	if ic == 1 && j.usesTaps() {
		j.taps = &d.scratch.taps
	}
	par, err := d.forImages((g.n+ic-1)/ic, ic*per*j.cgk, func(ws *workspace, grp, threads int, par bool) {
		n0, n1 := grp*ic, min(g.n, (grp+1)*ic)
		if n1-n0 > 1 {
			j.forwardImages(ws, n0, n1, threads)
		} else {
			j.forwardImage(ws, n0, threads)
		}
		j.imageEpilogue(ws, n0*per, n1*per, par)
	})
	return d.finish(j, par, err)
}

// forwardImage computes image n's output, tile by tile.
func (j *convJob) forwardImage(ws *workspace, n, threads int) {
	g := &j.g
	taps := j.taps != nil && threads == 1
	if taps {
		j.tapsOnce.Do(j.prepareTaps)
	}
	band := (!taps || g.s[2] != 1) && j.prepareBand(ws)
	for gi := 0; gi < g.groups; gi++ {
		wg := j.w[gi*g.og*j.cgk:]
		for t0 := 0; t0 < g.outVol; t0 += j.tile {
			nt := min(j.tile, g.outVol-t0)
			if taps {
				j.forwardTaps(ws, n, gi, t0/g.out[2], nt/g.out[2])
				continue
			}
			var b []float32
			var ldb int
			if band {
				ws.col = grow(ws.col, j.cgk*nt)
				j.bandPatches(ws, ws.col, nt, n, gi, t0/g.out[2], nt/g.out[2])
				b, ldb = ws.col, nt
			} else {
				b, ldb = j.patchesOf(ws, n, gi, t0, nt)
			}
			c := j.res[(n*g.o+gi*g.og)*g.outVol+t0:]
			sgemm(threads, false, false, g.og, nt, j.cgk, 1, wg, j.cgk, b, ldb, 0, c, g.outVol)
		}
	}
}

// forwardImages computes the outputs of images [n0, n1) with one product
// per group: their patch matrices side by side, the result scattered back
// to each image.
func (j *convJob) forwardImages(ws *workspace, n0, n1, threads int) {
	g := &j.g
	cols := (n1 - n0) * g.outVol
	ws.col = grow(ws.col, j.cgk*cols)
	ws.tmp = grow(ws.tmp, g.og*cols)
	band := j.prepareBand(ws)
	for gi := 0; gi < g.groups; gi++ {
		for n := n0; n < n1; n++ {
			if band {
				j.bandPatches(ws, ws.col[(n-n0)*g.outVol:], cols, n, gi, 0, g.out[1])
			} else {
				g.patches(false, ws.col[(n-n0)*g.outVol:], cols, j.x, j.xoff, j.xst, n, gi*g.cg, 0, g.outVol)
			}
		}
		sgemm(threads, false, false, g.og, cols, j.cgk, 1, j.w[gi*g.og*j.cgk:], j.cgk, ws.col, cols, 0, ws.tmp, cols)
		// Image n's block of the product goes to its rows of the result.
		vec.CopyBlocks(j.res[(n0*g.o+gi*g.og)*g.outVol:], g.outVol, g.o*g.outVol, ws.tmp, cols, g.outVol, n1-n0, g.og, g.outVol)
	}
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
	g.patches(false, ws.col, nt, j.x, j.xoff, j.xst, n, gi*g.cg, t0, nt)
	return ws.col, nt
}

// convBackwardInput: dX[n, g] = col2im(W_gᵀ · dY[n, g]). Image groups are
// independent, so no two tasks add into one element. sgemm reads W_g
// transposed in place.
func (d *Device) convBackwardInput(j *convJob) error {
	g := &j.g
	direct := g.kVol == 1 && g.s == [3]int{1, 1, 1} && g.p == [3]int{}
	if direct {
		j.tile = g.outVol
		j.direct = true // no im2col: images are not batched
	}
	per := g.c * g.inVol
	ic := j.imagesPerCall(d.workers)
	dxst := [5]int{g.c * g.inVol, g.inVol, g.in[1] * g.in[2], g.in[2], 1}
	par, err := d.forImages((g.n+ic-1)/ic, ic*g.o*j.cgk*g.outVol, func(ws *workspace, grp, threads int, par bool) {
		n0, n1 := grp*ic, min(g.n, (grp+1)*ic)
		if !direct && !j.col2im3x3() { // col2im adds into dX
			clear(j.res[n0*per : n1*per])
		}
		switch {
		case direct:
			j.inputGradDirect(n0, threads)
		case n1-n0 > 1:
			j.inputGradImages(ws, n0, n1, dxst, threads)
		default:
			j.inputGradImage(ws, n0, dxst, threads)
		}
		j.imageEpilogue(ws, n0*per, n1*per, par)
	})
	return d.finish(j, par, err)
}

// inputGradDirect computes image n's input gradient of a 1×1, stride 1,
// unpadded convolution: the patch matrix is dX itself.
func (j *convJob) inputGradDirect(n, threads int) {
	g := &j.g
	for gi := 0; gi < g.groups; gi++ {
		b := j.dy[(n*g.o+gi*g.og)*g.outVol:]
		c := j.res[(n*g.c+gi*g.cg)*g.inVol:]
		sgemm(threads, true, false, j.cgk, g.outVol, g.og, 1, j.w[gi*g.og*j.cgk:], j.cgk, b, g.outVol, 0, c, g.inVol)
	}
}

// inputGradImage computes image n's input gradient tile by tile.
func (j *convJob) inputGradImage(ws *workspace, n int, dxst [5]int, threads int) {
	g := &j.g
	for gi := 0; gi < g.groups; gi++ {
		a := j.w[gi*g.og*j.cgk:] // [og, cgk]: op(A) = its transpose
		for t0 := 0; t0 < g.outVol; t0 += j.tile {
			nt := min(j.tile, g.outVol-t0)
			b := j.dy[(n*g.o+gi*g.og)*g.outVol+t0:]
			ws.col = grow(ws.col, j.cgk*nt)
			sgemm(threads, true, false, j.cgk, nt, g.og, 1, a, j.cgk, b, g.outVol, 0, ws.col, nt)
			if nt == g.outVol {
				j.col2im(ws, ws.col, nt, n, gi, dxst)
			} else {
				g.patches(true, ws.col, nt, j.res, 0, dxst, n, gi*g.cg, t0, nt)
			}
		}
	}
}

// inputGradImages computes the input gradients of images [n0, n1) with one
// product per group: their output gradients side by side.
func (j *convJob) inputGradImages(ws *workspace, n0, n1 int, dxst [5]int, threads int) {
	g := &j.g
	cols := (n1 - n0) * g.outVol
	ws.col = grow(ws.col, j.cgk*cols)
	ws.tmp = grow(ws.tmp, g.og*cols)
	for gi := 0; gi < g.groups; gi++ {
		// The images' output gradients side by side.
		vec.CopyBlocks(ws.tmp, cols, g.outVol, j.dy[(n0*g.o+gi*g.og)*g.outVol:], g.outVol, g.o*g.outVol, n1-n0, g.og, g.outVol)
		sgemm(threads, true, false, j.cgk, cols, g.og, 1, j.w[gi*g.og*j.cgk:], j.cgk, ws.tmp, cols, 0, ws.col, cols)
		for n := n0; n < n1; n++ {
			j.col2im(ws, ws.col[(n-n0)*g.outVol:], cols, n, gi, dxst)
		}
	}
}

// col2im3x3 reports whether col2im can run on vec.Col2Im3x3: a 2-D 3×3
// window, stride and dilation one, whole images per patch matrix. It then
// sets every element of dX (no clearing first) and sums each in a register
// instead of adding nine shifted blocks into memory; a padded convolution's
// dX is the middle of an unpadded one's over the padded plane.
func (j *convJob) col2im3x3() bool {
	g := &j.g
	return g.in[0] == 1 && g.k == [3]int{1, 3, 3} && g.s == [3]int{1, 1, 1} && g.dl == [3]int{1, 1, 1} &&
		g.p[0] == 0 && g.p[1] <= 2 && g.p[2] <= 2 && j.tile >= g.outVol
}

// col2im moves image n's patch matrix (group gi, columns ldc apart, from
// col) into dX: by vec.Col2Im3x3 channel by channel when col2im3x3 allows
// (into ws's padded planes first when the convolution is padded), else by
// adding with patches.
func (j *convJob) col2im(ws *workspace, col []float32, ldc int, n, gi int, dxst [5]int) {
	g := &j.g
	if !j.col2im3x3() {
		g.patches(true, col, ldc, j.res, 0, dxst, n, gi*g.cg, 0, g.outVol)
		return
	}
	dx := j.res[(n*g.c+gi*g.cg)*g.inVol:]
	ph, pw := g.p[1], g.p[2]
	if ph == 0 && pw == 0 {
		for ci := 0; ci < g.cg; ci++ {
			vec.Col2Im3x3(dx[ci*g.inVol:][:g.inVol], g.in[2], col[ci*g.kVol*ldc:], ldc, g.out[1], g.out[2])
		}
		return
	}
	pwid := g.out[2] + 2 // the padded plane's width; its height is out[1] + 2
	plane := pwid * (g.out[1] + 2)
	ws.plane = grow(ws.plane, g.cg*plane)
	for ci := 0; ci < g.cg; ci++ {
		vec.Col2Im3x3(ws.plane[ci*plane:][:plane], pwid, col[ci*g.kVol*ldc:], ldc, g.out[1], g.out[2])
	}
	vec.CopyBlocks(dx, g.in[2], g.inVol, ws.plane[ph*pwid+pw:], pwid, plane, g.cg, g.in[1], g.in[2])
}

// convBackwardWeight: dW_g = Σ_n dY[n, g] · patches(X[n, g])ᵀ. The output
// positions of all images, in order, are cut into chunks; each chunk is one
// product whose depth is the chunk's positions (patches and output
// gradients of consecutive images side by side), accumulated with beta = 1.
// Each worker takes a fixed run of chunks into its own copy of dW, so the
// sum is deterministic; the copies are added at the end. When dW has fewer
// columns (Cg·kVol) than rows (O/groups), each part computes dWᵀ instead,
// the shape sgemm runs faster, and the sum transposes it back.
//
// Images of at least minImageChunk output positions are one chunk each: a
// chunk of several images copies their dY rows side by side first, which
// made small images slower in larger chunks (docs/measurements.md).
func (d *Device) convBackwardWeight(j *convJob) error {
	g := &j.g
	size := g.o * j.cgk
	positions := g.n * g.outVol
	kc := min(positions, max(256, min(4096, (1<<18)/max(j.cgk, 1))))
	if g.outVol <= kc { // whole images per chunk: im2col's fast path
		kc -= kc % g.outVol
		if g.outVol >= minImageChunk {
			kc = g.outVol // one image per chunk: its dY is read in place
		}
	}
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
	swap := j.cgk < g.og
	own := 1 // part 0 accumulates straight into the result
	if swap {
		own = 0
	}
	d.scratch.f32c = grow(d.scratch.f32c, (parts-own)*size)
	dst := func(p int) []float32 {
		if p < own {
			return j.res
		}
		return d.scratch.f32c[(p-own)*size : (p-own+1)*size]
	}
	run := func(ws *workspace, p int) {
		for c := p * per; c < min(chunks, (p+1)*per); c++ {
			beta := float32(1)
			if c == p*per {
				beta = 0
			}
			j.weightChunk(ws, c*kc, min(positions, (c+1)*kc), dst(p), beta, threads, swap)
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
	if swap {
		j.sumTransposed(d.scratch.f32c[:parts*size], parts)
	} else {
		for p := 1; p < parts; p++ {
			binaryF32[device.OpAdd](j.res, j.res, dst(p))
		}
	}
	if j.epi != nil {
		return d.run(j.epi)
	}
	return nil
}

// sumTransposed sets the result dW (per group [og, cgk]) to the sum of the
// parts' transposed copies (per group [cgk, og]).
func (j *convJob) sumTransposed(parts []float32, n int) {
	g := &j.g
	size := g.o * j.cgk
	for gi := 0; gi < g.groups; gi++ {
		base := gi * g.og * j.cgk
		for o := 0; o < g.og; o++ {
			for r := 0; r < j.cgk; r++ {
				var s float32
				for p := 0; p < n; p++ {
					s += parts[p*size+base+r*g.og+o]
				}
				j.res[base+o*j.cgk+r] = s
			}
		}
	}
}

// weightChunk computes, for output positions [p0, p1) of all images taken
// in order, dst_g = dY_chunk · patchesᵀ + beta·dst_g for every group g, or
// its transpose (dst_g = patches · dY_chunkᵀ + beta·dst_g) when swap is set.
func (j *convJob) weightChunk(ws *workspace, p0, p1 int, dst []float32, beta float32, threads int, swap bool) {
	g := &j.g
	k := p1 - p0
	n0, t0 := p0/g.outVol, p0%g.outVol
	single := t0+k <= g.outVol // one image: dY is read in place
	ws.col = grow(ws.col, j.cgk*k)
	if !single {
		ws.tmp = grow(ws.tmp, g.og*k)
	}
	band := j.prepareBand(ws)
	ow := g.out[2]
	for gi := 0; gi < g.groups; gi++ {
		for pos := p0; pos < p1; {
			n, t := pos/g.outVol, pos%g.outVol
			nt := min(g.outVol-t, p1-pos)
			if band && t%ow == 0 && nt%ow == 0 && nt <= j.tile {
				j.bandPatches(ws, ws.col[pos-p0:], k, n, gi, t/ow, nt/ow)
			} else {
				g.patches(false, ws.col[pos-p0:], k, j.x, j.xoff, j.xst, n, gi*g.cg, t, nt)
			}
			if !single {
				vec.CopyRows(ws.tmp[pos-p0:], k, j.dy[(n*g.o+gi*g.og)*g.outVol+t:], g.outVol, g.og, nt)
			}
			pos += nt
		}
		a, lda := ws.tmp, k
		if single {
			a, lda = j.dy[(n0*g.o+gi*g.og)*g.outVol+t0:], g.outVol
		}
		c := dst[gi*g.og*j.cgk:]
		if swap {
			sgemm(threads, false, true, j.cgk, g.og, k, 1, ws.col, k, a, lda, beta, c, g.og)
		} else {
			sgemm(threads, false, true, g.og, j.cgk, k, 1, a, lda, ws.col, k, beta, c, j.cgk)
		}
	}
}
