package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// reduceAttrs are the parameters of a reduction node.
type reduceAttrs struct {
	op   device.ReduceOp
	axes []int // sorted, normalized
	keep bool
}

// normAxes resolves the axes of a reduction (none means all) or panics.
func normAxes(op string, axes []int, rank int) []int {
	if len(axes) == 0 {
		out := make([]int, rank)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, 0, len(axes))
	for _, a := range axes {
		a = normAxis(op, a, rank)
		if slices.Contains(out, a) {
			usage(op, "axis %d repeated in %v", a, axes)
		}
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// reduce records the differentiable reduction op, computed by rop, of t over
// axes and attaches op's backward record to the result.
func (t *Tensor) reduce(op gradOp, rop device.ReduceOp, axes []int, keep bool) *Tensor {
	t.check(op.String())
	if r := t.reduceInt(op, rop, axes, keep); r != nil {
		return r
	}
	res, attrs := t.reduceNoGrad(op.String(), rop, axes, keep)
	return recordGrad(op, res, []*Tensor{t}, attrs)
}

// argReduce records an index reduction (ArgMax, ArgMin) of t along axis,
// which has no gradient; name is the operation's name for usage errors.
func (t *Tensor) argReduce(name string, op device.ReduceOp, axis int, keep bool) *Tensor {
	t.check(name)
	if r := t.argInt(name, op, axis, keep); r != nil {
		return r
	}
	res, _ := t.reduceNoGrad(name, op, []int{axis}, keep)
	return res
}

// reduceNoGrad records a reduction of t over axes with no backward record and
// returns it with its attributes; name is the operation's name for usage
// errors.
func (t *Tensor) reduceNoGrad(name string, op device.ReduceOp, axes []int, keep bool) (*Tensor, reduceAttrs) {
	t.check(name)
	ax := normAxes(name, axes, len(t.shape))
	red := 1
	var out []int
	for i, s := range t.shape {
		if slices.Contains(ax, i) {
			red *= s
			if keep {
				out = append(out, 1)
			}
		} else {
			out = append(out, s)
		}
	}
	if red == 0 && op != device.ReduceSum && op != device.ReduceProd {
		usage(name, "cannot reduce over an empty axis (shape %v, axes %v): the result is undefined", t.shape, ax)
	}
	if out == nil {
		out = []int{}
	}
	dt := t.n.dtype // reduceInt has made integer sums Int64
	if op == device.ReduceArgMax || op == device.ReduceArgMin {
		dt = Int32
	}
	d := t.n.dev
	d.mu.Lock()
	n := d.newNode(kindReduce, dt, out, []src{{n: t.n, v: t.view()}})
	n.attrs = reduceAttrs{op: op, axes: ax, keep: keep}
	res := whole(n)
	d.mu.Unlock()
	return res, reduceAttrs{op: op, axes: ax, keep: keep}
}

// Sum sums over axes (all when none), dropping them. Integer and Bool
// tensors sum exactly to Int64, as in PyTorch (an error on a device without
// Int64 or without Int64 reductions; see reduce_int.go).
func (t *Tensor) Sum(axes ...int) *Tensor { return t.reduce(opSum, device.ReduceSum, axes, false) }

// SumKeepDim sums over axes, keeping them with size one.
func (t *Tensor) SumKeepDim(axes ...int) *Tensor {
	return t.reduce(opSum, device.ReduceSum, axes, true)
}

// Prod multiplies over axes (all when none), dropping them; integers and
// Bool give Int64, as Sum does.
func (t *Tensor) Prod(axes ...int) *Tensor { return t.reduce(opProd, device.ReduceProd, axes, false) }

// Max takes the maximum over axes (all when none), dropping them; NaN wins.
// The result keeps t's type and is exact for integers.
func (t *Tensor) Max(axes ...int) *Tensor { return t.reduce(opMax, device.ReduceMax, axes, false) }

// MaxKeepDim is Max keeping the reduced axes with size one.
func (t *Tensor) MaxKeepDim(axes ...int) *Tensor {
	return t.reduce(opMax, device.ReduceMax, axes, true)
}

// Min takes the minimum over axes (all when none), dropping them; NaN wins.
// The result keeps t's type and is exact for integers.
func (t *Tensor) Min(axes ...int) *Tensor { return t.reduce(opMin, device.ReduceMin, axes, false) }

// MinKeepDim is Min keeping the reduced axes with size one.
func (t *Tensor) MinKeepDim(axes ...int) *Tensor {
	return t.reduce(opMin, device.ReduceMin, axes, true)
}

// ArgMax returns the Int32 index of the first maximum along axis.
func (t *Tensor) ArgMax(axis int) *Tensor {
	return t.argReduce("ArgMax", device.ReduceArgMax, axis, false)
}

// ArgMaxKeepDim is ArgMax keeping the axis with size one.
func (t *Tensor) ArgMaxKeepDim(axis int) *Tensor {
	return t.argReduce("ArgMax", device.ReduceArgMax, axis, true)
}

// ArgMin returns the Int32 index of the first minimum along axis.
func (t *Tensor) ArgMin(axis int) *Tensor {
	return t.argReduce("ArgMin", device.ReduceArgMin, axis, false)
}

// ArgMinKeepDim is ArgMin keeping the axis with size one.
func (t *Tensor) ArgMinKeepDim(axis int) *Tensor {
	return t.argReduce("ArgMin", device.ReduceArgMin, axis, true)
}

// reducedCount returns how many elements each output of a reduction over
// axes combines.
func (t *Tensor) reducedCount(op string, axes []int) int {
	n := 1
	for _, a := range normAxes(op, axes, len(t.shape)) {
		n *= t.shape[a]
	}
	return n
}

// Mean averages over axes (all when none), dropping them.
// An integer or Bool tensor is averaged in Float32 (PyTorch refuses it).
func (t *Tensor) Mean(axes ...int) *Tensor {
	t.check("Mean")
	return t.asFloat().Sum(axes...).MulScalar(1 / float64(t.reducedCount("Mean", axes)))
}

// MeanKeepDim is Mean keeping the reduced axes with size one.
func (t *Tensor) MeanKeepDim(axes ...int) *Tensor {
	t.check("Mean")
	return t.asFloat().SumKeepDim(axes...).MulScalar(1 / float64(t.reducedCount("Mean", axes)))
}

// Var is the variance over axes (all when none) with the given correction
// (1 for the unbiased estimate, PyTorch's default; 0 for the population).
func (t *Tensor) Var(correction int, axes ...int) *Tensor { return t.variance(correction, axes, false) }

// VarKeepDim is Var keeping the reduced axes with size one.
func (t *Tensor) VarKeepDim(correction int, axes ...int) *Tensor {
	return t.variance(correction, axes, true)
}

func (t *Tensor) variance(correction int, axes []int, keep bool) *Tensor {
	t.check("Var")
	t = t.asFloat()
	n := t.reducedCount("Var", axes)
	dev := t.Sub(t.MeanKeepDim(axes...)) // NaN over an empty axis, as in PyTorch
	sq := dev.Mul(dev)
	var s *Tensor
	if keep {
		s = sq.SumKeepDim(axes...)
	} else {
		s = sq.Sum(axes...)
	}
	return s.DivScalar(float64(max(n-correction, 0))) // PyTorch 1.13's divisor
}

// runReduce launches a reduction, with ep as its epilogue (nil for none).
func (d *Device) runReduce(n *node, ep *epilogue) error {
	a := n.attrs.(reduceAttrs)
	s := n.srcs[0]
	var perm, outShape, redShape []int
	for i := range s.v.shape {
		if !slices.Contains(a.axes, i) {
			perm = append(perm, i)
			outShape = append(outShape, s.v.shape[i])
		}
	}
	for _, ax := range a.axes {
		perm = append(perm, ax)
		redShape = append(redShape, s.v.shape[ax])
	}
	if outShape == nil {
		outShape = []int{}
	}
	iter := permuteView(s.v, perm)
	for attempt := 0; ; attempt++ {
		pb := d.newProgBuilder(iter.shape, false)
		defer d.putProgBuilder(pb)
		r := pb.build(s.n, iter)
		pb.b.Output(pb.b.Cast(r, d.accumulator(n)))
		if pb.err != nil {
			return pb.err
		}
		if ep == nil {
			ep = identityEpilogue(n)
		}
		if pb.bindings(len(ep.inputs)+1) > d.maxBufs {
			if w := pb.worstContributor(nil); w != nil && attempt < 8 {
				w.forceMat = true
				continue
			}
		}
		epIn := make([]device.View, len(ep.inputs))
		for i, v := range ep.inputs {
			epIn[i] = dropKeptAxes(v, a)
		}
		blk, out, err := d.store(ep, outShape)
		if err != nil {
			return err
		}
		k := device.ReduceKernel{
			Op: a.op, OutShape: outShape, RedShape: redShape,
			Inputs: pb.inputs, Prologue: pb.b.P,
			EpilogueInputs: epIn, Epilogue: ep.prog,
			Outputs: []device.View{out},
		}
		err = d.launch("reduce."+a.op.String(), "reduce", append(pb.ops, kernelOps(a.op.String(), ep.ops)...),
			len(pb.inputs)+len(epIn), 1, func() error { return d.raw.Reduce(&k) })
		return d.finishEpilogue(ep, blk, err)
	}
}

// dropKeptAxes removes the size-one reduced axes of a keep-dim reduction from
// a view of its result so it matches the kernel's output shape.
func dropKeptAxes(v device.View, a reduceAttrs) device.View {
	if !a.keep {
		return v
	}
	var sh, st []int
	for i := range v.Shape {
		if !slices.Contains(a.axes, i) {
			sh = append(sh, v.Shape[i])
			st = append(st, v.Strides[i])
		}
	}
	if sh == nil {
		sh, st = []int{}, []int{}
	}
	v.Shape, v.Strides = sh, st
	return v
}

// permuteView reorders a view's dimensions.
func permuteView(v view, perm []int) view {
	out := view{shape: make([]int, len(perm)), strides: make([]int, len(perm)), offset: v.offset}
	for i, p := range perm {
		out.shape[i] = v.shape[p]
		out.strides[i] = v.strides[p]
	}
	return out
}
