package cpu

import (
	"github.com/shaderflow/shaderflow/tensor/device"
)

// convJob is a convolution in progress, lowered to im2col + sgemm.
type convJob struct {
	g    geom3
	cgk  int       // Cg * kVol: the reduction length of the forward product
	tile int       // output positions per patch matrix
	w    []float32 // weights [O, cgk] contiguous (forward) or transposed per group [G][cgk, Og] (backward input)
	res  []float32 // the result, contiguous
}

// tileFor picks how many output positions one patch matrix covers: about
// 64 Ki floats of patches, at least 64 positions.
func (j *convJob) tileFor() int {
	return min(j.g.outVol, max(64, (1<<16)/max(j.cgk, 1)))
}

// Conv runs a convolution (forward or backward) with epilogue, by im2col and
// the sgemm seam.
func (d *Device) Conv(k *device.ConvKernel) error {
	if err := k.Validate(); err != nil {
		return err
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	aData, err := d.data(k.A.Buf)
	if err != nil {
		return err
	}
	bData, err := d.data(k.B.Buf)
	if err != nil {
		return err
	}
	shape := k.ResultShape()
	total := device.NumElements(shape)
	res, direct, err := d.result(k.Epilogue, k.EpilogueInputs, k.Outputs, total, aData, bData)
	if err != nil {
		return err
	}
	j := &convJob{g: norm3(k.Geom, false), res: res}
	j.cgk = j.g.cg * j.g.kVol
	j.tile = j.tileFor()
	if total > 0 {
		a, b := asF32(aData), asF32(bData)
		switch k.Mode {
		case device.ConvForward:
			err = d.convForward(j, k, a, b)
		case device.ConvBackwardInput:
			err = d.convBackwardInput(j, k, a, b)
		default:
			err = d.convBackwardWeight(j, k, a, b)
		}
		if err != nil {
			return err
		}
	}
	if direct {
		return nil
	}
	return d.epilogue(k.Epilogue, k.EpilogueInputs, k.Outputs, shape, res)
}

// contiguousF32 returns view v of data as a contiguous slice, packing it
// into dst when it is strided.
func contiguousF32(dst *[]float32, data []float32, v device.View) []float32 {
	n := v.NumElements()
	if v.IsContiguous() {
		return data[v.Offset : v.Offset+n]
	}
	*dst = grow(*dst, n)
	out := *dst
	var idx [8]int
	walk(v.Shape, [3][]int{v.Strides}, [3]int{v.Offset}, 0, n, idxScratch(idx[:], len(v.Shape)), func(pos int, at [3]int, run int) {
		st := v.Strides[len(v.Strides)-1]
		for t := 0; t < run; t++ {
			out[pos+t] = data[at[0]+t*st]
		}
	})
	return out
}

// idxScratch returns buf if it can hold n indices, else a new slice.
func idxScratch(buf []int, n int) []int {
	if n <= len(buf) {
		return buf[:n]
	}
	return make([]int, n)
}

// runTasks runs fn(ws, t) for tasks [0, n), each worth cost operations,
// inline when the total is small.
func (d *Device) runTasks(n, cost int, fn func(ws *workspace, t int)) error {
	if n == 1 || d.serial(n, cost) {
		ws := d.ws[0]
		return safely(func() {
			for t := 0; t < n; t++ {
				fn(ws, t)
			}
		})
	}
	return d.parallelFor(n, 1, func(w, lo, hi int) {
		for t := lo; t < hi; t++ {
			fn(d.ws[w], t)
		}
	})
}

// convForward: Y[n, g] = W_g · patches(X[n, g]), tile by tile.
func (d *Device) convForward(j *convJob, k *device.ConvKernel, x, w []float32) error {
	g := &j.g
	j.w = contiguousF32(&d.scratch.f32b, w, k.B) // [O, cgk]
	xst := strides5(k.A)
	tiles := (g.outVol + j.tile - 1) / j.tile
	return d.runTasks(g.n*g.groups*tiles, g.og*j.cgk*j.tile, func(ws *workspace, t int) {
		n, gi, t0 := t/(g.groups*tiles), t/tiles%g.groups, t%tiles*j.tile
		nt := min(j.tile, g.outVol-t0)
		ws.col = grow(ws.col, j.cgk*nt)
		g.patches(false, ws.col, nt, 1, x, k.A.Offset, xst, n, gi*g.cg, t0, nt)
		c := j.res[(n*g.o+gi*g.og)*g.outVol+t0:]
		sgemm(g.og, nt, j.cgk, j.w[gi*g.og*j.cgk:], j.cgk, ws.col, nt, c, g.outVol)
	})
}

// convBackwardInput: dX[n, g] = col2im(W_gᵀ · dY[n, g]), one task per
// (image, group) so no two tasks add into one element.
func (d *Device) convBackwardInput(j *convJob, k *device.ConvKernel, dy, w []float32) error {
	g := &j.g
	wc := contiguousF32(&d.scratch.f32b, w, k.B) // [O, cgk]
	// Transpose each group's weights to [cgk, Og].
	d.scratch.f32c = grow(d.scratch.f32c, g.o*j.cgk)
	wt := d.scratch.f32c
	for gi := 0; gi < g.groups; gi++ {
		for o := 0; o < g.og; o++ {
			row := wc[(gi*g.og+o)*j.cgk : (gi*g.og+o+1)*j.cgk]
			for r, v := range row {
				wt[gi*g.og*j.cgk+r*g.og+o] = v
			}
		}
	}
	dyc := contiguousF32(&d.scratch.f32d, dy, k.A) // [N, O, outVol]
	clear(j.res)
	dxst := [5]int{g.c * g.inVol, g.inVol, g.in[1] * g.in[2], g.in[2], 1}
	return d.runTasks(g.n*g.groups, g.og*j.cgk*g.outVol, func(ws *workspace, t int) {
		n, gi := t/g.groups, t%g.groups
		for t0 := 0; t0 < g.outVol; t0 += j.tile {
			nt := min(j.tile, g.outVol-t0)
			ws.col = grow(ws.col, j.cgk*nt)
			b := dyc[(n*g.o+gi*g.og)*g.outVol+t0:]
			sgemm(j.cgk, nt, g.og, wt[gi*g.og*j.cgk:], g.og, b, g.outVol, ws.col, nt)
			g.patches(true, ws.col, nt, 1, j.res, 0, dxst, n, gi*g.cg, t0, nt)
		}
	})
}

// convBackwardWeight: dW_g = Σ_n dY[n, g] · patches(X[n, g])ᵀ. Each
// part accumulates into its own copy of dW; the copies are summed at the end.
func (d *Device) convBackwardWeight(j *convJob, k *device.ConvKernel, dy, x []float32) error {
	g := &j.g
	dyc := contiguousF32(&d.scratch.f32d, dy, k.A) // [N, O, outVol]
	xst := strides5(k.B)
	size := g.o * j.cgk
	tiles := (g.outVol + j.tile - 1) / j.tile
	tasks := g.n * g.groups * tiles
	parts := max(min(d.workers, tasks), 1)
	if d.serial(tasks, g.og*j.cgk*j.tile) {
		parts = 1
	}
	d.scratch.f32c = grow(d.scratch.f32c, parts*size)
	partial := d.scratch.f32c
	clear(partial)
	body := func(ws *workspace, w, t int) {
		n, gi, t0 := t/(g.groups*tiles), t/tiles%g.groups, t%tiles*j.tile
		nt := min(j.tile, g.outVol-t0)
		ws.col = grow(ws.col, j.cgk*nt) // transposed patches: [nt, cgk]
		g.patches(false, ws.col, 1, j.cgk, x, k.B.Offset, xst, n, gi*g.cg, t0, nt)
		ws.tmp = grow(ws.tmp, g.og*j.cgk)
		a := dyc[(n*g.o+gi*g.og)*g.outVol+t0:]
		sgemm(g.og, j.cgk, nt, a, g.outVol, ws.col, j.cgk, ws.tmp, j.cgk)
		acc := partial[w*size+gi*g.og*j.cgk : w*size+(gi+1)*g.og*j.cgk]
		for i, v := range ws.tmp[:len(acc)] {
			acc[i] += v
		}
	}
	// Part p always takes the same tasks, so the sum is deterministic.
	per := (tasks + parts - 1) / parts
	run := func(ws *workspace, p int) {
		for t := p * per; t < min(tasks, (p+1)*per); t++ {
			body(ws, p, t)
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
	copy(j.res, partial[:size])
	for p := 1; p < parts; p++ {
		for i, v := range partial[p*size : (p+1)*size] {
			j.res[i] += v
		}
	}
	return nil
}
