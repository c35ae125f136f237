package tensor

import (
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

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
	n.argType = argType
	return n
}

// elementwise records the differentiable elementwise operation op, computed
// by dop, over ts and attaches op's backward record to the result.
func elementwise(op gradOp, dop device.Op, dt, argType DType, ts []*Tensor) *Tensor {
	return recordGrad(op, elementwiseNoGrad(op.String(), dop, dt, argType, ts), ts, nil)
}

// elementwiseNoGrad records dop over ts, broadcast to their common shape,
// with no backward record: name is the operation's name for usage errors.
// Operations without a gradient (comparisons, logic) use it directly.
func elementwiseNoGrad(name string, dop device.Op, dt, argType DType, ts []*Tensor) *Tensor {
	d := ts[0].n.dev
	sameDevice(name, d, ts...)
	shape := ts[0].shape
	for _, t := range ts[1:] {
		if !slices.Equal(t.shape, shape) {
			shapes := make([][]int, len(ts))
			for i, t := range ts {
				shapes[i] = t.shape
			}
			shape = broadcastShapes(name, shapes...)
			break
		}
	}
	d.mu.Lock()
	out := whole(d.ewNode(dop, dt, argType, shape, ts...))
	d.mu.Unlock()
	return out
}

// unaryFloat applies a float op, converting integer inputs to Float32; it
// computes in Float64 for Float64 and in Float32 otherwise.
func (t *Tensor) unaryFloat(op gradOp, dop device.Op) *Tensor {
	t.check(op.String())
	dt := floatType(t.n.dtype)
	return elementwise(op, dop, dt, dt.ComputeType(), []*Tensor{t})
}

// unaryNoGrad applies a float op as unaryFloat does but records no
// gradient: for ops that only backward rules use (the GELUs' derivatives),
// which run on detached tensors.
func (t *Tensor) unaryNoGrad(dop device.Op) *Tensor {
	t.check(dop.String())
	if t.requiresGrad() {
		usage(dop.String(), "records no gradient, and the input requires one")
	}
	dt := floatType(t.n.dtype)
	return elementwiseNoGrad(dop.String(), dop, dt, dt.ComputeType(), []*Tensor{t})
}

// unaryKeep applies an op that keeps the input's type (neg, abs, sign).
func (t *Tensor) unaryKeep(op gradOp, dop device.Op) *Tensor {
	t.check(op.String())
	dt := t.n.dtype
	if dt == Bool {
		dt = Int32
	}
	return elementwise(op, dop, dt, dt.ComputeType(), []*Tensor{t})
}

// binaryArith applies an arithmetic op with type promotion.
func (t *Tensor) binaryArith(op gradOp, dop device.Op, o *Tensor) *Tensor {
	name := op.String()
	t.check(name)
	o.check(name)
	dt := promote(t.n.dtype, o.n.dtype)
	if dt == Bool {
		dt = Int32
	}
	if dop == device.OpPow || dop == device.OpDiv && !dt.IsFloat() {
		dt = floatType(dt)
	}
	return elementwise(op, dop, dt, dt.ComputeType(), []*Tensor{t, o})
}

// compare applies a comparison op, yielding Bool (which has no gradient).
func (t *Tensor) compare(name string, op device.Op, o *Tensor) *Tensor {
	t.check(name)
	o.check(name)
	at := promote(t.n.dtype, o.n.dtype).ComputeType()
	if at == Bool {
		at = Int32
	}
	return elementwiseNoGrad(name, op, Bool, at, []*Tensor{t, o})
}

// scalarType is the type of a constant v combined with t: Int32 when t is
// integral and v is integral, else t's float type.
func (t *Tensor) scalarType(v float64) DType {
	switch dt := t.n.dtype; {
	case v != math.Trunc(v):
	case dt == Int64 && v >= -(1<<63) && v < 1<<63:
		return Int64
	case (dt == Uint8 || dt == Int8) && castsExactly(v, dt):
		return dt // PyTorch keeps an integer tensor's type for an integer scalar
	case (dt.IsInt() || dt == Bool) && v == float64(int32(v)):
		return Int32
	}
	return floatType(t.n.dtype)
}

// castsExactly reports whether the integer v is a value of the 8-bit type dt.
func castsExactly(v float64, dt DType) bool {
	if dt == Uint8 {
		return v >= 0 && v <= 255
	}
	return v >= -128 && v <= 127
}

// scalarLike returns a constant tensor of shape [] holding v, typed to combine
// with t.
func (t *Tensor) scalarLike(v float64) *Tensor { return constant(t.n.dev, v, t.scalarType(v), nil) }

// scalarOp records t op v (or v op t when reverse) without a tensor for the
// constant: the constant is a literal of the fused program.
func (t *Tensor) scalarOp(op gradOp, dop device.Op, v float64, reverse bool) *Tensor {
	t.check(op.String())
	ct := t.scalarType(v)
	dt := promote(t.n.dtype, ct)
	if dt == Bool {
		dt = Int32
	}
	if dop == device.OpPow || dop == device.OpDiv && !dt.IsFloat() {
		dt = floatType(dt)
	}
	d := t.n.dev
	d.mu.Lock()
	n := d.newNode(kindElementwise, dt, t.shape, []src{{n: t.n, v: t.view()}})
	n.op, n.argType, n.imm, n.lit = dop, dt.ComputeType(), v, 2
	if reverse {
		n.lit = 1
	}
	out := whole(n)
	d.mu.Unlock()
	if !t.requiresGrad() {
		return out
	}
	return recordGrad(op, out, []*Tensor{t}, v)
}

// constNode records a scalar constant. The caller holds d.mu.
func (d *Device) constNode(v float64, dt DType) *node {
	n := d.newNode(kindElementwise, dt, []int{}, nil)
	n.op, n.imm, n.argType = device.OpConst, v, dt.ComputeType()
	return n
}

var zeros16 [16]int

// zeroStrides returns n zero strides; slices of views are never modified in
// place, so short ones share one array.
func zeroStrides(n int) []int {
	if n <= len(zeros16) {
		return zeros16[:n:n]
	}
	return make([]int, n)
}

// constant returns a tensor of shape holding v everywhere: one element
// broadcast with zero strides, so it costs no memory and fuses as a literal.
func constant(d *Device, v float64, dt DType, shape []int) *Tensor {
	d.mu.Lock()
	defer d.mu.Unlock()
	return wrap(d.constNode(v, dt), view{shape: shape, strides: zeroStrides(len(shape))})
}
