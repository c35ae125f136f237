package cpu

import (
	"github.com/shaderflow/shaderflow/tensor/device"
	"runtime"
)

// accState accumulates one reduction (or one part of it).
type accState struct {
	v   float64 // running sum or product, or the extreme value so far
	idx int     // position of the extreme value inside the reduced sub-space
	has bool    // whether an element has been seen (for max, min, arg*)
}

// identity returns the state before any element.
func identity(op device.ReduceOp) accState {
	if op == device.ReduceProd {
		return accState{v: 1}
	}
	return accState{}
}

// better reports whether x replaces the extreme value cur: for max, x is
// greater or x is the first NaN; for min, x is smaller or the first NaN.
// Ties keep the earlier element.
func better(op device.ReduceOp, x, cur float64) bool {
	if x != x {
		return cur == cur
	}
	if op == device.ReduceMax || op == device.ReduceArgMax {
		return x > cur
	}
	return x < cur
}

// add accumulates x, whose first element sits at position base of the
// reduced sub-space.
func (st *accState) add(op device.ReduceOp, x []float32, base int) {
	switch op {
	case device.ReduceSum:
		st.v += sumF32(x)
		return
	case device.ReduceProd:
		v := st.v
		for _, e := range x {
			v *= float64(e)
		}
		st.v = v
		return
	}
	if len(x) == 0 {
		return
	}
	var v float32
	i := 0
	switch op {
	case device.ReduceMax:
		v = maxF32(x)
	case device.ReduceMin:
		v = minF32(x)
	case device.ReduceArgMax:
		i = argMaxF32(x)
		v = x[i]
	default:
		i = argMinF32(x)
		v = x[i]
	}
	if !st.has || better(op, float64(v), st.v) {
		st.v, st.idx, st.has = float64(v), base+i, true
	}
}

// merge folds in the state of a later part of the same reduction.
func (st *accState) merge(op device.ReduceOp, b accState) {
	switch op {
	case device.ReduceSum:
		st.v += b.v
	case device.ReduceProd:
		st.v *= b.v
	default:
		if b.has && (!st.has || better(op, b.v, st.v)) {
			*st = b
		}
	}
}

// reduction is one Reduce kernel in progress.
type reduction struct {
	op   device.ReduceOp
	pro  *plan
	reg  device.Reg // the prologue register reduced
	r    int        // reduced elements per output
	accF []float32  // results for Sum, Prod, Max, Min
	accI []int32    // results for ArgMax, ArgMin
}

// put stores the final value of output o.
func (rd *reduction) put(o int, st accState) {
	switch rd.op {
	case device.ReduceArgMax, device.ReduceArgMin:
		rd.accI[o] = int32(st.idx)
	default:
		rd.accF[o] = float32(st.v)
	}
}

// outputs reduces outputs [o0, o1) on one worker.
func (rd *reduction) outputs(ws *workspace, o0, o1 int) {
	if rd.reducesShortRows() {
		rd.shortOutputs(ws, o0, o1)
		return
	}
	p, r := rd.pro, rd.r
	ws.prepare(p)
	o, st := o0, identity(rd.op)
	for pos, end := o0*r, o1*r; pos < end; {
		m := p.take(pos, min(chunkLen, end-pos))
		p.eval(ws, pos, m)
		x := ws.rf32[rd.reg]
		for j := 0; j < m; {
			rel := pos + j - o*r
			take := min(m-j, r-rel)
			st.add(rd.op, x[j:j+take], rel)
			j += take
			if rel+take == r {
				rd.put(o, st)
				o, st = o+1, identity(rd.op)
			}
		}
		pos += m
	}
}

// span accumulates positions [lo, hi) of output o's reduction into st.
func (rd *reduction) span(ws *workspace, o, lo, hi int, st *accState) {
	p := rd.pro
	ws.prepare(p)
	base := o * rd.r
	for pos := lo; pos < hi; {
		m := p.take(base+pos, min(chunkLen, hi-pos))
		p.eval(ws, base+pos, m)
		st.add(rd.op, ws.rf32[rd.reg], pos)
		pos += m
	}
}

// reduceNow runs a reduction with prologue and epilogue.
func (d *Device) reduceNow(k *device.ReduceKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	if err := k.Validate(); err != nil {
		return err
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	if k.Accumulator() != device.Float32 || isWide([][]device.View{k.Inputs, k.EpilogueInputs, k.Outputs}, k.Prologue, k.Epilogue) {
		return d.reduceWide(k)
	}
	o, r := device.NumElements(k.OutShape), device.NumElements(k.RedShape)
	rd := reduction{op: k.Op, r: r}
	arg := k.Op == device.ReduceArgMax || k.Op == device.ReduceArgMin
	if arg {
		d.scratch.i32 = grow(d.scratch.i32, o)
		rd.accI = d.scratch.i32
	} else {
		d.scratch.f32a = grow(d.scratch.f32a, o)
		rd.accF = d.scratch.f32a
	}
	switch {
	case o == 0:
	case r == 0:
		fill(rd.accF, float32(identity(k.Op).v))
	default:
		rows := reducesRows(k, o)
		split, splits := around{}, false
		if !rows {
			split, splits = sumsAround(k, o, d.scratch.order)
		}
		inputs := k.Inputs
		switch {
		case rows:
			d.scratch.order = reducedFirst(d.scratch.order, len(k.OutShape), len(k.RedShape))
			inputs = d.permuted(k, d.scratch.order)
		case splits:
			d.scratch.order = split.perm
			inputs = d.permuted(k, split.perm)
		default:
			d.scratch.shape = append(append(d.scratch.shape[:0], k.OutShape...), k.RedShape...)
		}
		rd.pro = &d.plans[0]
		rd.pro.reset(k.Prologue.Code, d.scratch.shape)
		if err := d.addViews(rd.pro, inputs); err != nil {
			return err
		}
		rd.pro.finish(k.Prologue.Outputs)
		rd.reg = k.Prologue.Outputs[0]
		var err error
		switch {
		case rows && k.Op == device.ReduceSum:
			err = d.sumRows(&rd, o, r)
		case rows && arg:
			err = d.argRows(&rd, o, r)
		case rows:
			err = d.extremeRows(&rd, o, r)
		case splits:
			err = d.sumAround(&rd, o, split)
		default:
			err = d.reduce(&rd, o)
		}
		if err != nil {
			return err
		}
	}
	epi := &d.plans[1]
	epi.reset(k.Epilogue.Code, k.OutShape)
	if arg {
		epi.addI32(rd.accI)
	} else {
		epi.addF32(rd.accF)
	}
	if err := d.addViews(epi, k.EpilogueInputs); err != nil {
		return err
	}
	if err := d.addSinks(epi, k.Outputs, k.Epilogue.Outputs); err != nil {
		return err
	}
	epi.finish(k.Epilogue.Outputs)
	return d.run(epi)
}

// permuted returns k's input views over the kernel's axes (OutShape ++
// RedShape) in the order perm, in d's scratch, and sets d.scratch.shape to
// that order's shape.
func (d *Device) permuted(k *device.ReduceKernel, perm []int) []device.View {
	no, n := len(k.OutShape), len(perm)
	d.scratch.shape = d.scratch.shape[:0]
	for _, a := range perm {
		if a < no {
			d.scratch.shape = append(d.scratch.shape, k.OutShape[a])
		} else {
			d.scratch.shape = append(d.scratch.shape, k.RedShape[a-no])
		}
	}
	d.scratch.views = grow(d.scratch.views, len(k.Inputs))
	d.scratch.perm = grow(d.scratch.perm, n*len(k.Inputs))
	for i, v := range k.Inputs {
		strides := d.scratch.perm[i*n : (i+1)*n : (i+1)*n]
		for j, a := range perm {
			strides[j] = v.Strides[a]
		}
		v.Shape, v.Strides = d.scratch.shape, strides
		d.scratch.views[i] = v
	}
	return d.scratch.views
}

// reduce fills rd's results for o outputs: in parallel over outputs when
// there are many, else by splitting each long reduction into parts.
func (d *Device) reduce(rd *reduction, o int) error {
	r := rd.r
	cost := r * max(len(rd.pro.code), 1)
	if d.serial(o, cost) {
		ws := d.ws[0]
		return safely(func() { rd.outputs(ws, 0, o) })
	}
	if o >= 2*d.workers || r < 1<<15 {
		return d.parallelFor(o, d.grainFor(o, cost), func(w, lo, hi int) { rd.outputs(d.ws[w], lo, hi) })
	}
	partLen := roundUp(max(r/(4*d.workers), 1<<14), chunkLen)
	parts := (r + partLen - 1) / partLen
	d.scratch.states = grow(d.scratch.states, parts)
	states := d.scratch.states
	for out := 0; out < o; out++ {
		for t := range states {
			states[t] = identity(rd.op)
		}
		err := d.parallelFor(parts, 1, func(w, lo, hi int) {
			for t := lo; t < hi; t++ {
				rd.span(d.ws[w], out, t*partLen, min(r, (t+1)*partLen), &states[t])
			}
		})
		if err != nil {
			return err
		}
		st := states[0]
		for _, b := range states[1:] {
			st.merge(rd.op, b)
		}
		rd.put(out, st)
	}
	return nil
}
