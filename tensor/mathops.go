package tensor

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Elementwise math functions of PyTorch's that the first op set lacked.
// Integer inputs are converted to Float32, as for Exp and Floor.

// Log1p returns log(1 + t), accurate for t near 0, as torch.log1p.
func (t *Tensor) Log1p() *Tensor { return t.unaryFloat(opLog1p, device.OpLog1p) }

// Expm1 returns e^t - 1, accurate for t near 0, as torch.expm1.
func (t *Tensor) Expm1() *Tensor { return t.unaryFloat(opExpm1, device.OpExpm1) }

// Log2 returns the base-2 logarithm (exact at powers of two), as torch.log2.
func (t *Tensor) Log2() *Tensor { return t.unaryFloat(opLog2, device.OpLog2) }

// Log10 returns the base-10 logarithm, as torch.log10 (within float32
// rounding: log(t)/ln 10).
func (t *Tensor) Log10() *Tensor {
	t.check("Log10")
	return t.Log().MulScalar(1 / math.Ln10)
}

// Tan returns the tangent, as torch.tan (computed as sin/cos).
func (t *Tensor) Tan() *Tensor {
	t.check("Tan")
	return t.Sin().Div(t.Cos())
}

// Sinh returns the hyperbolic sine, as torch.sinh.
func (t *Tensor) Sinh() *Tensor { return t.unaryFloat(opSinh, device.OpSinh) }

// Cosh returns the hyperbolic cosine, as torch.cosh.
func (t *Tensor) Cosh() *Tensor { return t.unaryFloat(opCosh, device.OpCosh) }

// Atan returns the arctangent in [-π/2, π/2], as torch.atan.
func (t *Tensor) Atan() *Tensor { return t.unaryFloat(opAtan, device.OpAtan) }

// Asin returns the arcsine in [-π/2, π/2] (NaN outside [-1, 1]), as
// torch.asin.
func (t *Tensor) Asin() *Tensor { return t.unaryFloat(opAsin, device.OpAsin) }

// Acos returns the arccosine in [0, π] (NaN outside [-1, 1]), as torch.acos.
func (t *Tensor) Acos() *Tensor { return t.unaryFloat(opAcos, device.OpAcos) }

// Round rounds to the nearest integer, halves to even, as torch.round (with
// no decimals). Its gradient is zero, as PyTorch's.
func (t *Tensor) Round() *Tensor { return t.unaryFloat(opRound, device.OpRound) }

// Trunc rounds toward zero, as torch.trunc. Its gradient is zero.
func (t *Tensor) Trunc() *Tensor { return t.unaryFloat(opTrunc, device.OpTrunc) }

// binaryFloat applies a float op of two tensors with broadcasting; the result
// has their promoted float type.
func (t *Tensor) binaryFloat(op gradOp, dop device.Op, o *Tensor) *Tensor {
	name := op.String()
	t.check(name)
	o.check(name)
	dt := floatType(promote(t.n.dtype, o.n.dtype))
	return elementwise(op, dop, dt, dt.ComputeType(), []*Tensor{t, o})
}

// Atan2 returns the angle of the point (o, t), t being y and o being x, in
// [-π, π] with broadcasting, as torch.atan2(t, o), signed zeros and
// infinities included.
func (t *Tensor) Atan2(o *Tensor) *Tensor { return t.binaryFloat(opAtan2, device.OpAtan2, o) }

// refuseInts panics unless t or o is a float tensor: the float ops below
// would not give PyTorch's integer results.
func refuseInts(op string, t, o *Tensor) {
	t.check(op)
	o.check(op)
	if !t.DType().IsFloat() && !o.DType().IsFloat() {
		usage(op, "supports float tensors only, got %s and %s", t.DType(), o.DType())
	}
}

// Fmod returns the remainder of t/o with the sign of t, computed exactly (C
// fmod), with broadcasting, as torch.fmod; division by zero gives NaN. Its
// gradients are PyTorch's: 1 for t and -trunc(t/o) for o. Integer tensors
// are refused.
func (t *Tensor) Fmod(o *Tensor) *Tensor {
	refuseInts("Fmod", t, o)
	return t.binaryFloat(opFmod, device.OpFmod, o)
}

// Remainder returns the remainder of t/o with the sign of o (Python's %),
// with broadcasting, as torch.remainder: Fmod, plus o where that is nonzero
// and of the other sign. Integer tensors are refused.
func (t *Tensor) Remainder(o *Tensor) *Tensor {
	refuseInts("Remainder", t, o)
	m := t.Fmod(o)
	zero := m.scalarLike(0)
	flip := m.Ne(zero).LogicalAnd(m.Lt(zero).LogicalXor(o.Lt(zero)))
	return Where(flip, m.Add(o), m)
}

// Lerp returns t + weight*(end - t) with broadcasting, as torch.lerp(t, end,
// weight), with PyTorch's formula: end - (end - t)*(1 - weight) where
// |weight| ≥ 0.5, so that weight 1 gives end exactly.
func (t *Tensor) Lerp(end, weight *Tensor) *Tensor {
	t.check("Lerp")
	end.check("Lerp")
	weight.check("Lerp")
	diff := end.Sub(t)
	small := weight.Abs().LtScalar(0.5)
	return Where(small, t.Add(weight.Mul(diff)), end.Sub(diff.Mul(weight.RSubScalar(1))))
}

// LerpScalar is Lerp with a constant weight, as torch.lerp(t, end, weight).
func (t *Tensor) LerpScalar(end *Tensor, weight float64) *Tensor {
	t.check("LerpScalar")
	end.check("LerpScalar")
	diff := end.Sub(t)
	if math.Abs(weight) < 0.5 {
		return t.Add(diff.MulScalar(weight))
	}
	return end.Sub(diff.MulScalar(1 - weight))
}

// The primitive math operations of this file, with their backward rules
// (PyTorch's formulas, derivatives.yaml).
var (
	opLog1p = defineGradOp("Log1p")
	opExpm1 = defineGradOp("Expm1")
	opLog2  = defineGradOp("Log2")
	opSinh  = defineGradOp("Sinh")
	opCosh  = defineGradOp("Cosh")
	opAtan  = defineGradOp("Atan")
	opAsin  = defineGradOp("Asin")
	opAcos  = defineGradOp("Acos")
	opRound = defineGradOp("Round")
	opTrunc = defineGradOp("Trunc")
	opAtan2 = defineGradOp("Atan2")
	opFmod  = defineGradOp("Fmod")
)

func init() {
	opLog1p.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Div(c.in(0).AddScalar(1))) }
	opExpm1.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Mul(c.out().AddScalar(1))) }
	opLog2.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Div(c.in(0).MulScalar(math.Ln2))) }
	opSinh.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Mul(c.in(0).Cosh())) }
	opCosh.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Mul(c.in(0).Sinh())) }
	opAtan.backward = func(c *gradCtx) []*Tensor {
		x := c.in(0)
		return grads(c.g.Div(x.Mul(x).AddScalar(1)))
	}
	// d asin = 1/sqrt(1 - x²), d acos = -1/sqrt(1 - x²).
	opAsin.backward = func(c *gradCtx) []*Tensor {
		x := c.in(0)
		return grads(c.g.Mul(x.Mul(x).RSubScalar(1).Rsqrt()))
	}
	opAcos.backward = func(c *gradCtx) []*Tensor {
		x := c.in(0)
		return grads(c.g.Mul(x.Mul(x).RSubScalar(1).Rsqrt()).Neg())
	}
	opRound.backward = func(c *gradCtx) []*Tensor { return grads(ZerosLike(c.g)) }
	opTrunc.backward = opRound.backward
	opAtan2.backward = func(c *gradCtx) []*Tensor {
		y, x := c.in(0), c.in(1)
		recip := x.Mul(x).Add(y.Mul(y)).Reciprocal()
		return grads(c.g.Mul(x).Mul(recip), c.g.Mul(y).Mul(recip).Neg())
	}
	opFmod.backward = func(c *gradCtx) []*Tensor {
		a, b := c.in(0), c.in(1)
		var gb *Tensor
		if c.needs(1) {
			gb = c.g.Mul(a.Div(b).Trunc()).Neg()
		}
		return grads(c.g, gb)
	}
}
