package tensor

import "github.com/shaderflow/shaderflow/tensor/device"

// Reductions of integer and Bool tensors, as PyTorch defines them: Sum and
// Prod give Int64 (accumulated exactly, wrapping past the int64 range; a
// backend without Int64 accumulators gives exact counts, smallIntSum); Max
// and Min keep the type; ArgMax and ArgMin compare exactly. A backend
// reduces in the accumulator types its Info().Accumulators lists (the CPU:
// Int32, Int64, Float64; the GPU backends: Float32 only); where Int32 is not
// among them, Int32 extremes are composed exactly of Float32 reductions of
// the high and low 16 bits (intExtreme).

// reduceInt returns the reduction of an integer or Bool tensor when it needs
// another path than one Reduce kernel over t's own values, or nil.
func (t *Tensor) reduceInt(op gradOp, rop device.ReduceOp, axes []int, keep bool) *Tensor {
	dt := t.n.dtype
	if dt.IsFloat() {
		return nil
	}
	d := t.n.dev
	switch rop {
	case device.ReduceSum, device.ReduceProd:
		if dt == Int64 {
			return nil
		}
		if rop == device.ReduceSum && !d.info.ReduceAccumulators().Has(Int64) {
			if s := t.smallIntSum(op, axes, keep); s != nil {
				return s
			}
		}
		return t.Cast(Int64).reduce(op, rop, axes, keep)
	}
	acc := d.info.ReduceAccumulators()
	switch {
	case dt == Bool && acc.Has(Int32):
		return t.Cast(Int32).reduce(op, rop, axes, keep).Cast(Bool)
	case dt == Bool || dt == Uint8 || dt == Int8: // exact in float32
		return t.Cast(Float32).reduce(op, rop, axes, keep).Cast(dt)
	case acc.Has(dt):
		return nil
	case dt == Int32:
		return t.intExtreme(op.String(), rop, axes, keep)
	}
	usage(op.String(), "the %s backend cannot reduce %s exactly (its accumulators are %s)", d.info.Backend, dt, acc)
	return nil
}

// smallIntBound is the largest magnitude of a Bool, Uint8 or Int8 element.
var smallIntBound = map[DType]int{Bool: 1, Uint8: 255, Int8: 128}

// smallIntSum is the sum of a Bool, Uint8 or Int8 tensor (a count, most
// often) on a backend that cannot accumulate in Int64: where the reduced
// elements' magnitudes cannot add up past 2^24, every partial sum is an
// integer float32 holds exactly, so a Float32 sum is exact. It gives Int64
// where the backend stores Int64, else Int32; nil where the bound fails.
func (t *Tensor) smallIntSum(op gradOp, axes []int, keep bool) *Tensor {
	bound, ok := smallIntBound[t.n.dtype]
	if !ok || t.reducedCount(op.String(), axes) > (1<<24)/bound {
		return nil
	}
	res := Int32
	if t.n.dev.Supports(Int64) {
		res = Int64
	}
	return t.Cast(Float32).reduce(op, device.ReduceSum, axes, keep).Cast(res)
}

// intExtreme is Max or Min of an Int32 tensor through Float32 reductions:
// with x = hi*65536 + lo (hi the floor quotient, lo in [0, 65536)), both
// halves are exact in float32; the extreme's hi is the extreme of hi, and
// its lo the extreme of lo among the elements holding that hi.
func (t *Tensor) intExtreme(name string, rop device.ReduceOp, axes []int, keep bool) *Tensor {
	d := t.n.dev
	k := constant(d, 65536, Int32, nil)
	hi := elementwiseNoGrad(name, device.OpDiv, Int32, Int32, []*Tensor{t, k})
	lo := elementwiseNoGrad(name, device.OpSub, Int32, Int32, []*Tensor{t,
		elementwiseNoGrad(name, device.OpMul, Int32, Int32, []*Tensor{hi, k})})
	hiF := hi.Cast(Float32)
	mhi, _ := hiF.reduceNoGrad(name, rop, axes, true)
	none := -1.0 // below every lo, for Max
	if rop == device.ReduceMin {
		none = 65536
	}
	sel := Where(hiF.Eq(mhi), lo.Cast(Float32), constant(d, none, Float32, nil))
	mlo, _ := sel.reduceNoGrad(name, rop, axes, true)
	top := elementwiseNoGrad(name, device.OpMul, Int32, Int32, []*Tensor{mhi.Cast(Int32), k})
	res := elementwiseNoGrad(name, device.OpAdd, Int32, Int32, []*Tensor{top, mlo.Cast(Int32)})
	return dropAxes(res, axes, keep)
}

// argInt returns ArgMax or ArgMin of an integer or Bool tensor when the
// backend cannot compare its values exactly in one reduction, or nil: the
// first position where the tensor equals its (exact) extreme.
func (t *Tensor) argInt(name string, rop device.ReduceOp, axis int, keep bool) *Tensor {
	dt := t.n.dtype
	if dt.IsFloat() || dt == Bool || dt == Uint8 || dt == Int8 || t.n.dev.info.ReduceAccumulators().Has(dt) {
		return nil
	}
	var m *Tensor
	if rop == device.ReduceArgMax {
		m = t.MaxKeepDim(axis)
	} else {
		m = t.MinKeepDim(axis)
	}
	return t.Eq(m).Cast(Float32).argReduce(name, device.ReduceArgMax, axis, keep)
}

// accumulator is the register type a reduction node n reduces in: its own
// compute type, or for ArgMax and ArgMin the source's; Float32 for Bool,
// and for Uint8 and Int8 where the backend lacks Int32 (their values are
// exact in float32). It is never narrowed otherwise: a backend that lacks
// it refuses the kernel with an error naming it (reduceInt and argInt have
// already composed the exact paths where one exists).
func (d *Device) accumulator(n *node) DType {
	src := n.dtype
	if a := n.attrs.(reduceAttrs); a.op == device.ReduceArgMax || a.op == device.ReduceArgMin {
		src = n.srcs[0].n.dtype
	}
	t := src.ComputeType()
	small := src == Uint8 || src == Int8
	if t == Bool || small && !d.info.ReduceAccumulators().Has(t) {
		return Float32
	}
	return t
}
