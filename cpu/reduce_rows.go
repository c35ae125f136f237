package cpu

import (
	"math"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// A sum over outer axes (a bias gradient: [batch, features] summed over the
// batch) reads its input with unit stride along the outputs and a large
// stride along the reduced axes. Reducing one output at a time would gather
// every element with that large stride; instead the prologue is evaluated
// with the reduced axes outermost, so each chunk holds rows of consecutive
// outputs, and rows are added with vector adds into per-output sums. A
// maximum or minimum over such axes (a softmax over channels), or its
// position (a segmentation's class per pixel), is folded row by row the
// same way.

// rowsFoldEvery is how many rows are summed in float32 before the row sums
// are folded into the float64 totals: the float32 part then carries the
// rounding of at most this many additions, as the lane sums of vec.Sum do.
const rowsFoldEvery = 8

// minRowWidth is the narrowest row of outputs worth reducing row by row.
const minRowWidth = 16

// minOutputRun is the shortest run of consecutive outputs in memory worth
// reading row by row (a softmax over the height of [N, C, 14, 14] reads
// runs of 14): the rows path copies such runs, the output-by-output path
// gathers every element with the reduced axis's stride.
const minOutputRun = 8

// reducesRows reports whether a reduction of o outputs is a sum, maximum,
// minimum or their position that reads faster with its reduced axes
// outermost: its first input has unit stride along the innermost output
// axis (in runs of at least minOutputRun outputs) but not along the
// innermost reduced axis, and its prologue does not depend on the order of
// positions.
func reducesRows(k *device.ReduceKernel, o int) bool {
	switch k.Op {
	case device.ReduceSum, device.ReduceMax, device.ReduceMin, device.ReduceArgMax, device.ReduceArgMin:
	default:
		return false
	}
	if len(k.Inputs) == 0 || len(k.OutShape) == 0 || len(k.RedShape) == 0 {
		return false
	}
	no := len(k.OutShape)
	s := k.Inputs[0].Strides
	return s[no-1] == 1 && s[len(s)-1] != 1 && contiguousRun(k.OutShape, s[:no]) >= minOutputRun && o >= minRowWidth &&
		orderFree(k.Prologue)
}

// orderFree reports whether p computes each position's value without
// regard to the order positions are visited in (no index, no random draw),
// so that a reduction may evaluate it in another order.
func orderFree(p device.Program) bool {
	for _, in := range p.Code {
		switch in.Op {
		case device.OpIndex, device.OpRandUniform, device.OpRandNormal:
			return false
		}
	}
	return true
}

// contiguousRun returns how many elements the innermost dimensions of shape
// hold that strides lay out one after another (the width of a row of
// outputs: a [64, 32, 14, 14] tensor summed over its batch has rows of
// 32·14·14 floats, not 14).
func contiguousRun(shape, strides []int) int {
	n := len(shape)
	run := shape[n-1]
	for i := n - 2; i >= 0 && strides[i] == strides[i+1]*shape[i+1]; i-- {
		run *= shape[i]
	}
	return run
}

// reducedFirst returns the order RedShape ++ OutShape of a reduction's
// axes (indices into OutShape ++ RedShape), in perm's storage.
func reducedFirst(perm []int, no, nr int) []int {
	perm = perm[:0]
	for j := range nr {
		perm = append(perm, no+j)
	}
	for i := range no {
		perm = append(perm, i)
	}
	return perm
}

// rowBlock is a block of the rows path's iteration: rows [lo, hi) of the
// outputs [c0, c1), o outputs a row.
type rowBlock struct{ lo, hi, c0, c1, o int }

// each evaluates rd's prologue over w and calls f on each run of values
// with the run's row and the block's column of its first value; a run never
// crosses the end of a row. Whole rows are evaluated as one range, so
// chunks span rows however narrow they are.
func (rd *reduction) each(ws *workspace, w rowBlock, f func(x []float32, row, col int)) {
	p := rd.pro
	ws.prepare(p)
	width := w.c1 - w.c0
	segs, seg := w.hi-w.lo, width
	if width == w.o {
		segs, seg = 1, (w.hi-w.lo)*w.o
	}
	row, col := w.lo, 0
	for k := range segs {
		for pos, end := (w.lo+k)*w.o+w.c0, (w.lo+k)*w.o+w.c0+seg; pos < end; {
			m := p.take(pos, min(chunkLen, end-pos))
			p.eval(ws, pos, m)
			x := ws.rf32[rd.reg][:m]
			for len(x) > 0 {
				take := min(len(x), width-col)
				f(x[:take], row, col)
				if x, col = x[take:], col+take; col == width {
					row, col = row+1, 0
				}
			}
			pos += m
		}
	}
}

// wideRow is the number of outputs a row must have per worker for the
// rows path to split many rows by outputs: each task then still reads
// runs of at least a quarter of it.
const wideRow = 1024

// byColumns reports whether the rows path splits r rows of o outputs over
// the workers by outputs rather than by rows: when there are too few rows
// to split (a sum over 7 rows) or the rows are wide. Each output is then
// reduced by one task in row order.
func (d *Device) byColumns(o, r int) bool {
	return o >= 2*minRowWidth*d.workers && (r < 2*rowsFoldEvery || o >= wideRow*d.workers)
}

// columnGrain is the outputs a task of the split by outputs takes.
func (d *Device) columnGrain(o int) int {
	return roundUp(max((o+4*d.workers-1)/(4*d.workers), 1), minRowWidth)
}

// sumRows fills rd.accF with the o sums of r rows each; rd.pro iterates over
// RedShape ++ OutShape. Split by rows, each task keeps its own float64
// totals and those are added in task order, so the sums do not depend on
// which worker ran what.
func (d *Device) sumRows(rd *reduction, o, r int) error {
	serial := d.serial(1, o*r*max(len(rd.pro.code), 1))
	tasks, grain := 1, r // tasks of grain rows
	if !serial && !d.byColumns(o, r) && r >= 2*rowsFoldEvery {
		grain = roundUp(max((r+4*d.workers-1)/(4*d.workers), 1), rowsFoldEvery)
		tasks = (r + grain - 1) / grain
	}
	d.scratch.f64 = grow(d.scratch.f64, tasks*o)
	d.scratch.f32d = grow(d.scratch.f32d, d.workers*o)
	totals, acc := d.scratch.f64[:tasks*o], d.scratch.f32d
	clear(totals)
	var err error
	switch {
	case !serial && d.byColumns(o, r):
		err = d.parallelFor(o, d.columnGrain(o), func(w, c0, c1 int) {
			rd.rows(d.ws[w], rowBlock{0, r, c0, c1, o}, totals[c0:c1], acc[c0:c1])
		})
	case tasks == 1:
		err = safely(func() { rd.rows(d.ws[0], rowBlock{0, r, 0, o, o}, totals, acc[:o]) })
	default:
		err = d.parallelFor(r, grain, func(w, lo, hi int) {
			t := lo / grain
			rd.rows(d.ws[w], rowBlock{lo, hi, 0, o, o}, totals[t*o:(t+1)*o], acc[w*o:(w+1)*o])
		})
	}
	if err != nil {
		return err
	}
	for j := range o {
		t := totals[j]
		for k := 1; k < tasks; k++ {
			t += totals[k*o+j]
		}
		rd.accF[j] = float32(t)
	}
	return nil
}

// rows adds the rows of block w into totals, summing up to rowsFoldEvery
// rows at a time in float32 in acc (both indexed by the block's column).
func (rd *reduction) rows(ws *workspace, w rowBlock, totals []float64, acc []float32) {
	width := w.c1 - w.c0
	clear(acc)
	pending := 0
	rd.each(ws, w, func(x []float32, _, col int) {
		a := acc[col : col+len(x)]
		vec.Add(a, a, x)
		if col+len(x) == width {
			if pending++; pending == rowsFoldEvery {
				vec.AddWidened(totals, acc)
				clear(acc)
				pending = 0
			}
		}
	})
	if pending > 0 {
		vec.AddWidened(totals, acc)
	}
}

// extremeRows fills rd.accF with the o maxima (or minima) of r rows each;
// rd.pro iterates over RedShape ++ OutShape. Tasks of consecutive rows run
// in parallel, each into its own row of extremes, and those are folded in
// task order (or, with few rows, tasks of consecutive outputs each fold all
// rows): vec.Maximum(x, best) keeps best on ties and takes x when it is
// NaN, so every output is the first of its extremes (its first NaN) as on
// the output-by-output path.
func (d *Device) extremeRows(rd *reduction, o, r int) error {
	fold, start := vec.Maximum, float32(math.Inf(-1))
	if rd.op == device.ReduceMin {
		fold, start = vec.Minimum, float32(math.Inf(1))
	}
	serial := d.serial(1, o*r*max(len(rd.pro.code), 1))
	grain := r
	if !serial && !d.byColumns(o, r) {
		grain = max((r+4*d.workers-1)/(4*d.workers), 1)
	}
	tasks := (r + grain - 1) / grain
	d.scratch.f32d = grow(d.scratch.f32d, tasks*o)
	best := d.scratch.f32d[:tasks*o]
	fill(best, start)
	var err error
	switch {
	case !serial && d.byColumns(o, r):
		err = d.parallelFor(o, d.columnGrain(o), func(w, c0, c1 int) {
			rd.extremes(d.ws[w], rowBlock{0, r, c0, c1, o}, best[c0:c1], fold)
		})
	case tasks == 1:
		err = safely(func() { rd.extremes(d.ws[0], rowBlock{0, r, 0, o, o}, best, fold) })
	default:
		err = d.parallelFor(r, grain, func(w, lo, hi int) {
			rd.extremes(d.ws[w], rowBlock{lo, hi, 0, o, o}, best[lo/grain*o:][:o], fold)
		})
	}
	if err != nil {
		return err
	}
	acc := rd.accF[:o]
	copy(acc, best[:o])
	for t := 1; t < tasks; t++ {
		fold(acc, best[t*o:(t+1)*o], acc)
	}
	return nil
}

// extremes folds the rows of block w into best (indexed by the block's column)
// with fold (vec.Maximum or vec.Minimum), each row's element first.
func (rd *reduction) extremes(ws *workspace, w rowBlock, best []float32, fold func(dst, a, b []float32)) {
	rd.each(ws, w, func(x []float32, _, col int) {
		b := best[col : col+len(x)]
		fold(b, x, b)
	})
}

// argRows fills rd.accI with the rows of the o maxima (or minima) of r rows
// each; rd.pro iterates over RedShape ++ OutShape. Tasks of consecutive
// outputs fold all rows in order with vec.ArgMaxInto (ArgMinInto), which
// keeps each output's first extreme (first NaN) and its row; the running
// extremes start at -Inf (+Inf) in row 0, which the first row replaces
// unless it is that infinity itself.
func (d *Device) argRows(rd *reduction, o, r int) error {
	fold, start := vec.ArgMaxInto, float32(math.Inf(-1))
	if rd.op == device.ReduceArgMin {
		fold, start = vec.ArgMinInto, float32(math.Inf(1))
	}
	d.scratch.f32d = grow(d.scratch.f32d, o)
	best, idx := d.scratch.f32d[:o], rd.accI[:o]
	fill(best, start)
	clear(idx)
	run := func(w, c0, c1 int) {
		b, ix := best[c0:c1], idx[c0:c1]
		rd.each(d.ws[w], rowBlock{0, r, c0, c1, o}, func(x []float32, row, col int) {
			fold(b[col:col+len(x)], ix[col:col+len(x)], x, int32(row))
		})
	}
	if d.serial(1, o*r*max(len(rd.pro.code), 1)) || o < 2*minRowWidth*d.workers {
		return safely(func() { run(0, 0, o) })
	}
	return d.parallelFor(o, d.columnGrain(o), run)
}
