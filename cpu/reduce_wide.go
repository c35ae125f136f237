package cpu

import (
	"github.com/shaderflow/shaderflow/tensor/device"
)

// wideAcc accumulates one output of a wide reduction in its accumulator
// type: float sums and products in float64 (rounded to Float32 at the end
// for a Float32 accumulator), integer ones wrapping in int64 (and wrapped
// to int32 at the end for an Int32 accumulator).
type wideAcc struct {
	v   wideVal
	idx int
	has bool
}

// reduceWide runs a reduction on the wide path (see isWide): serially per
// output, the outputs in parallel; the epilogue on the wide path.
func (d *Device) reduceWide(k *device.ReduceKernel) error {
	ins, err := d.wideViews(k.Inputs)
	if err != nil {
		return err
	}
	acc := k.Accumulator()
	isF := acc == device.Float32 || acc == device.Float64
	arg := k.Op == device.ReduceArgMax || k.Op == device.ReduceArgMin
	resT := acc
	if arg {
		resT = device.Int32
	}
	o, r := device.NumElements(k.OutShape), device.NumElements(k.RedShape)
	res := make([]byte, o*resT.Size())
	space := append(append([]int{}, k.OutShape...), k.RedShape...)
	reg := k.Prologue.Outputs[0]
	steps := compileWide(k.Prologue.Code, ins)
	fast := intSumRows(k, ins, space)
	body := func(lo, hi int) {
		if fast != nil {
			for out := lo; out < hi; out++ {
				storeElem(res, resT, out, wideVal{i: fast(out, r)})
			}
			return
		}
		f := newWideFrame(steps, len(k.Prologue.Code), space, ins)
		f.w.start(lo * r)
		for out := lo; out < hi; out++ {
			var st wideAcc
			if k.Op == device.ReduceProd {
				st.v = wideVal{f: 1, i: 1}
			}
			for j := 0; j < r; j += wideChunk {
				c := min(wideChunk, r-j)
				f.eval(out*r+j, c)
				col := f.regs[reg][:c]
				if k.Op == device.ReduceSum {
					for _, x := range col {
						st.v.f += x.f
						st.v.i += x.i
					}
					continue
				}
				for t, x := range col {
					st.add(k.Op, isF, x, j+t)
				}
			}
			v := st.v
			switch {
			case arg:
				v = wideVal{i: int64(st.idx)}
			case acc == device.Float32:
				v.f = float64(float32(v.f))
			case acc == device.Int32:
				v.i = int64(int32(v.i))
			}
			storeElem(res, resT, out, v)
		}
	}
	cost := max(r, 1) * (len(k.Prologue.Code) + 1) * 8
	if d.serial(o, cost) {
		err = safely(func() { body(0, o) })
	} else {
		err = d.parallelFor(o, d.grainFor(o, cost), func(_, lo, hi int) { body(lo, hi) })
	}
	if err != nil {
		return err
	}
	epi, err := d.wideViews(k.EpilogueInputs)
	if err != nil {
		return err
	}
	first := wideView{data: res, v: device.View{DType: resT, Shape: k.OutShape, Strides: device.ContiguousStrides(k.OutShape)}}
	outs, err := d.wideViews(k.Outputs)
	if err != nil {
		return err
	}
	return d.runWide(k.OutShape, k.Epilogue, append([]wideView{first}, epi...), outs)
}

// add folds in x, the element at position j of the reduced sub-space.
func (st *wideAcc) add(op device.ReduceOp, isF bool, x wideVal, j int) {
	switch op {
	case device.ReduceSum:
		st.v.f += x.f
		st.v.i += x.i
		return
	case device.ReduceProd:
		st.v.f *= x.f
		st.v.i *= x.i
		return
	}
	if !st.has {
		st.v, st.idx, st.has = x, j, true
		return
	}
	var better bool
	switch {
	case isF && x.f != x.f:
		better = st.v.f == st.v.f // the first NaN wins
	case isF && st.v.f != st.v.f:
	case isF && (op == device.ReduceMax || op == device.ReduceArgMax):
		better = x.f > st.v.f
	case isF:
		better = x.f < st.v.f
	case op == device.ReduceMax || op == device.ReduceArgMax:
		better = x.i > st.v.i
	default:
		better = x.i < st.v.i
	}
	if better {
		st.v, st.idx = x, j
	}
}
