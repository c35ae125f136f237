package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// A sum whose reduced axes lie on both sides of its outputs in memory (a
// channel's sum over [N, C, H, W]: a bias gradient, a batch norm's
// statistics) would, evaluated output by output, gather each output's
// strided runs into a chunk and expand a broadcast operand (the mean) into
// every chunk. Its prologue is instead evaluated in the input's own order
// (outer reduced axes, outputs, inner reduced axes), where the input is read
// in place, and each run of the inner axes is summed into its output.

// minAroundRun is the shortest run of inner reduced elements worth summing
// one run at a time: shorter runs cost a call each for little data.
const minAroundRun = 16

// around is the iteration order of a sum split around its outputs: the
// kernel's axes (indices into OutShape ++ RedShape) as outer reduced axes,
// output axes, inner reduced axes.
type around struct {
	perm         []int
	outer, inner int // elements of the outer and of the inner reduced axes
}

// sumsAround reports whether k, a reduction of o outputs, is a sum that
// reads faster in input 0's order with its reduced axes split around the
// outputs: every reduced axis (of more than one element) has a larger
// stride than every output axis or a smaller one, some of each, the inner
// ones hold at least minAroundRun elements, and the prologue does not
// depend on the order of positions.
func sumsAround(k *device.ReduceKernel, o int, perm []int) (around, bool) {
	if k.Op != device.ReduceSum || len(k.Inputs) == 0 || o < 2 || !orderFree(k.Prologue) {
		return around{}, false
	}
	no := len(k.OutShape)
	s := k.Inputs[0].Strides
	lo, hi := -1, -1 // the smallest and largest stride of an output axis
	for i, n := range k.OutShape {
		if n > 1 && (lo < 0 || absInt(s[i]) < lo) {
			lo = absInt(s[i])
		}
		if n > 1 && absInt(s[i]) > hi {
			hi = absInt(s[i])
		}
	}
	if lo < 0 {
		return around{}, false
	}
	// inside reports whether reduced axis j goes after the outputs.
	inside := func(j int) bool { return k.RedShape[j] == 1 || absInt(s[no+j]) < lo }
	a := around{outer: 1, inner: 1}
	for j, n := range k.RedShape {
		switch {
		case inside(j):
			a.inner *= n
		case absInt(s[no+j]) > hi:
			a.outer *= n
		default: // between two output axes
			return around{}, false
		}
	}
	if a.outer < 2 || a.inner < minAroundRun {
		return around{}, false
	}
	perm = perm[:0]
	for j := range k.RedShape {
		if !inside(j) {
			perm = append(perm, no+j)
		}
	}
	for i := range no {
		perm = append(perm, i)
	}
	for j := range k.RedShape {
		if inside(j) {
			perm = append(perm, no+j)
		}
	}
	a.perm = perm
	return a, true
}

// absInt returns |x|.
func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// sumAround fills rd.accF with the o sums of a, whose prologue plan
// iterates in a's order: tasks of outer rows in parallel, each run of inner
// elements summed in float64 into its task's partial sums, the partial sums
// then added in task order (the same result whichever worker ran a task).
func (d *Device) sumAround(rd *reduction, o int, a around) error {
	row := o * a.inner // elements of one outer row
	cost := row * max(len(rd.pro.code), 1)
	grain := d.grainFor(a.outer, cost)
	if d.serial(a.outer, cost) {
		grain = a.outer
	}
	tasks := (a.outer + grain - 1) / grain
	d.scratch.f64 = grow(d.scratch.f64, tasks*o)
	partial := d.scratch.f64[:tasks*o]
	clear(partial)
	sum := func(w, lo, hi int) {
		rd.aroundRows(d.ws[w], lo*row, hi*row, o, a.inner, partial[lo/grain*o:][:o])
	}
	var err error
	if tasks == 1 {
		err = safely(func() { sum(0, 0, a.outer) })
	} else {
		err = d.parallelFor(a.outer, grain, sum)
	}
	if err != nil {
		return err
	}
	for c := range o {
		t := 0.0
		for p := range tasks {
			t += partial[p*o+c]
		}
		rd.accF[c] = float32(t)
	}
	return nil
}

// aroundRows sums positions [lo, hi) of the prologue, whole outer rows of
// o outputs with inner runs of run elements each, into sums (one float64
// per output).
func (rd *reduction) aroundRows(ws *workspace, lo, hi, o, run int, sums []float64) {
	p := rd.pro
	ws.prepare(p)
	for pos := lo; pos < hi; {
		m := p.take(pos, min(chunkLen, hi-pos))
		p.eval(ws, pos, m)
		x := ws.rf32[rd.reg][:m]
		for at := pos; len(x) > 0; {
			take := min(len(x), run-at%run)
			sums[at/run%o] += vec.Sum(x[:take])
			x, at = x[take:], at+take
		}
		pos += m
	}
}
