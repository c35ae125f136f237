package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// A sum over outer axes (a bias gradient: [batch, features] summed over the
// batch) reads its input with unit stride along the outputs and a large
// stride along the reduced axes. Reducing one output at a time would gather
// every element with that large stride; instead the prologue is evaluated
// with the reduced axes outermost, so each chunk holds rows of consecutive
// outputs, and rows are added with vector adds into per-output sums.

// rowsFoldEvery is how many rows are summed in float32 before the row sums
// are folded into the float64 totals: the float32 part then carries the
// rounding of at most this many additions, as the lane sums of vec.Sum do.
const rowsFoldEvery = 8

// minRowWidth is the narrowest row of outputs worth reducing row by row.
const minRowWidth = 16

// sumsRows reports whether a reduction of o outputs is a sum that reads
// faster with its reduced axes outermost: its first input has unit stride
// along the innermost output axis but not along the innermost reduced axis,
// and its prologue does not depend on the order of positions.
func sumsRows(k *device.ReduceKernel, o int) bool {
	if k.Op != device.ReduceSum || len(k.Inputs) == 0 || len(k.OutShape) == 0 || len(k.RedShape) == 0 {
		return false
	}
	no := len(k.OutShape)
	s := k.Inputs[0].Strides
	return s[no-1] == 1 && s[len(s)-1] != 1 && contiguousRun(k.OutShape, s[:no]) >= minRowWidth && o >= minRowWidth &&
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

// sumRows fills rd.accF with the o sums of r rows each; rd.pro iterates over
// RedShape ++ OutShape.
func (d *Device) sumRows(rd *reduction, o, r int) error {
	cost := o * r * max(len(rd.pro.code), 1)
	workers := 1
	if !d.serial(1, cost) && r >= 2*rowsFoldEvery {
		workers = d.workers
	}
	d.scratch.f64 = grow(d.scratch.f64, workers*o)
	d.scratch.f32d = grow(d.scratch.f32d, workers*o)
	clear(d.scratch.f64)
	totals, rows := d.scratch.f64, d.scratch.f32d
	sum := func(w, lo, hi int) {
		rd.rows(d.ws[w], lo, hi, o, totals[w*o:(w+1)*o], rows[w*o:(w+1)*o])
	}
	var err error
	if workers == 1 {
		err = safely(func() { sum(0, 0, r) })
	} else {
		grain := roundUp(max((r+4*workers-1)/(4*workers), 1), rowsFoldEvery)
		err = d.parallelFor(r, grain, sum)
	}
	if err != nil {
		return err
	}
	for j := range o {
		t := totals[j]
		for w := 1; w < workers; w++ {
			t += totals[w*o+j]
		}
		rd.accF[j] = float32(t)
	}
	return nil
}

// rows adds rows [lo, hi) of o elements into totals, summing up to
// rowsFoldEvery rows at a time in float32 in acc.
func (rd *reduction) rows(ws *workspace, lo, hi, o int, totals []float64, acc []float32) {
	p := rd.pro
	ws.prepare(p)
	fold := func() { vec.AddWidened(totals, acc) }
	clear(acc)
	col, pending := 0, 0
	for pos, end := lo*o, hi*o; pos < end; {
		m := p.take(pos, min(chunkLen, end-pos))
		p.eval(ws, pos, m)
		x := ws.rf32[rd.reg][:m]
		for len(x) > 0 {
			take := min(len(x), o-col)
			a := acc[col : col+take]
			vec.Add(a, a, x[:take])
			x, col = x[take:], col+take
			if col == o {
				col, pending = 0, pending+1
				if pending == rowsFoldEvery {
					fold()
					clear(acc)
					pending = 0
				}
			}
		}
		pos += m
	}
	if pending > 0 {
		fold()
	}
}
