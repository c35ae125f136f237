package tensor

import "github.com/shaderflow/shaderflow/tensor/device"

// ewAttrs are the parameters of an elementwise node beyond its op.
type ewAttrs struct {
	argType DType // the compute type arguments are converted to
}

// sameDevice panics unless every tensor lives on d.
func sameDevice(op string, d *Device, ts ...*Tensor) {
	for _, t := range ts {
		t.check(op)
		if t.n.dev != d {
			usage(op, "tensors on different devices (%s and %s)", d.Name(), t.n.dev.Name())
		}
	}
}

// ewNode records an elementwise node of op over the tensors, broadcast to
// their common shape. The caller holds the device lock.
func (d *Device) ewNode(op device.Op, dt, argType DType, shape []int, ts ...*Tensor) *node {
	srcs := make([]src, len(ts))
	for i, t := range ts {
		srcs[i] = src{n: t.n, v: broadcastView(t.view(), shape)}
	}
	n := d.newNode(kindElementwise, dt, shape, srcs)
	n.op = op
	n.attrs = ewAttrs{argType: argType}
	return n
}

// elementwise records op over ts and returns the result tensor with autograd
// attached by grad (which may be nil for non-differentiable ops).
func elementwise(name string, op device.Op, dt, argType DType, ts []*Tensor, params any) *Tensor {
	d := ts[0].n.dev
	sameDevice(name, d, ts...)
	shapes := make([][]int, len(ts))
	for i, t := range ts {
		shapes[i] = t.shape
	}
	shape := broadcastShapes(name, shapes...)
	d.mu.Lock()
	out := whole(d.ewNode(op, dt, argType, shape, ts...))
	d.mu.Unlock()
	return recordGrad(name, out, ts, params)
}

// unaryFloat applies a float op, converting integer inputs to Float32.
func (t *Tensor) unaryFloat(name string, op device.Op) *Tensor {
	t.check(name)
	dt := floatType(t.n.dtype)
	return elementwise(name, op, dt, Float32, []*Tensor{t}, nil)
}

// unaryKeep applies an op that keeps the input's type (neg, abs, sign).
func (t *Tensor) unaryKeep(name string, op device.Op) *Tensor {
	t.check(name)
	dt := t.n.dtype
	if dt == Bool {
		dt = Int32
	}
	return elementwise(name, op, dt, dt.ComputeType(), []*Tensor{t}, nil)
}

// binaryArith applies an arithmetic op with type promotion.
func (t *Tensor) binaryArith(name string, op device.Op, o *Tensor) *Tensor {
	t.check(name)
	o.check(name)
	dt := promote(t.n.dtype, o.n.dtype)
	if dt == Bool {
		dt = Int32
	}
	if op == device.OpPow || op == device.OpDiv && !dt.IsFloat() {
		dt = floatType(dt)
	}
	return elementwise(name, op, dt, dt.ComputeType(), []*Tensor{t, o}, nil)
}

// compare applies a comparison op, yielding Bool.
func (t *Tensor) compare(name string, op device.Op, o *Tensor) *Tensor {
	t.check(name)
	o.check(name)
	at := promote(t.n.dtype, o.n.dtype).ComputeType()
	if at == Bool {
		at = Int32
	}
	return elementwise(name, op, Bool, at, []*Tensor{t, o}, nil)
}

// scalarLike returns a constant tensor of shape [] holding v, typed to combine
// with t: Int32 when t is Int32 and v is integral, else t's float type.
func (t *Tensor) scalarLike(v float64) *Tensor {
	dt := floatType(t.n.dtype)
	if (t.n.dtype == Int32 || t.n.dtype == Bool) && v == float64(int32(v)) {
		dt = Int32
	}
	return constant(t.n.dev, v, dt, nil)
}

// constant returns a tensor of shape holding v everywhere: one element
// broadcast with zero strides, so it costs no memory and fuses as a literal.
func constant(d *Device, v float64, dt DType, shape []int) *Tensor {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := d.newNode(kindElementwise, dt, []int{}, nil)
	n.op = device.OpConst
	n.imm = v
	n.attrs = ewAttrs{argType: dt.ComputeType()}
	return wrap(n, view{shape: shape, strides: make([]int, len(shape))})
}
