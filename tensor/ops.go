package tensor

import "github.com/shaderflow/shaderflow/tensor/device"

// Add returns t + o with broadcasting.
func (t *Tensor) Add(o *Tensor) *Tensor { return t.binaryArith(opAdd, device.OpAdd, o) }

// Sub returns t - o with broadcasting.
func (t *Tensor) Sub(o *Tensor) *Tensor { return t.binaryArith(opSub, device.OpSub, o) }

// Mul returns t * o with broadcasting.
func (t *Tensor) Mul(o *Tensor) *Tensor { return t.binaryArith(opMul, device.OpMul, o) }

// Div returns t / o with broadcasting (true division: integers give float).
func (t *Tensor) Div(o *Tensor) *Tensor {
	if !t.DType().IsFloat() && !o.DType().IsFloat() {
		return t.Cast(Float32).binaryArith(opDiv, device.OpDiv, o.Cast(Float32))
	}
	return t.binaryArith(opDiv, device.OpDiv, o)
}

// FloorDiv returns floor(t / o) for Int32 tensors (division by zero gives 0).
func (t *Tensor) FloorDiv(o *Tensor) *Tensor {
	if t.DType() != Int32 || o.DType() != Int32 {
		usage("FloorDiv", "needs Int32 tensors, got %s and %s", t.DType(), o.DType())
	}
	return elementwiseNoGrad("FloorDiv", device.OpDiv, Int32, Int32, []*Tensor{t, o})
}

// Pow returns t raised to o with broadcasting.
func (t *Tensor) Pow(o *Tensor) *Tensor { return t.binaryArith(opPow, device.OpPow, o) }

// Maximum returns the elementwise maximum (NaN wins).
func (t *Tensor) Maximum(o *Tensor) *Tensor { return t.binaryArith(opMaximum, device.OpMax, o) }

// Minimum returns the elementwise minimum (NaN wins).
func (t *Tensor) Minimum(o *Tensor) *Tensor { return t.binaryArith(opMinimum, device.OpMin, o) }

// AddScalar returns t + v.
func (t *Tensor) AddScalar(v float64) *Tensor { return t.scalarOp(opAddScalar, device.OpAdd, v, false) }

// SubScalar returns t - v.
func (t *Tensor) SubScalar(v float64) *Tensor { return t.scalarOp(opSubScalar, device.OpSub, v, false) }

// RSubScalar returns v - t.
func (t *Tensor) RSubScalar(v float64) *Tensor {
	return t.scalarOp(opRSubScalar, device.OpSub, v, true)
}

// MulScalar returns t * v.
func (t *Tensor) MulScalar(v float64) *Tensor { return t.scalarOp(opMulScalar, device.OpMul, v, false) }

// DivScalar returns t / v.
func (t *Tensor) DivScalar(v float64) *Tensor { return t.scalarOp(opDivScalar, device.OpDiv, v, false) }

// PowScalar returns t raised to v.
func (t *Tensor) PowScalar(v float64) *Tensor { return t.scalarOp(opPowScalar, device.OpPow, v, false) }

// Neg returns -t.
func (t *Tensor) Neg() *Tensor { return t.unaryKeep(opNeg, device.OpNeg) }

// Abs returns |t|.
func (t *Tensor) Abs() *Tensor { return t.unaryKeep(opAbs, device.OpAbs) }

// Sign returns -1, 0 or 1 by the sign of each element.
func (t *Tensor) Sign() *Tensor { return t.unaryKeep(opSign, device.OpSign) }

// Exp returns e^t.
func (t *Tensor) Exp() *Tensor { return t.unaryFloat(opExp, device.OpExp) }

// Log returns the natural logarithm.
func (t *Tensor) Log() *Tensor { return t.unaryFloat(opLog, device.OpLog) }

// Sqrt returns the square root.
func (t *Tensor) Sqrt() *Tensor { return t.unaryFloat(opSqrt, device.OpSqrt) }

// Rsqrt returns 1/sqrt(t).
func (t *Tensor) Rsqrt() *Tensor { return t.unaryFloat(opRsqrt, device.OpRsqrt) }

// Reciprocal returns 1/t.
func (t *Tensor) Reciprocal() *Tensor { return t.unaryFloat(opReciprocal, device.OpRecip) }

// Sin returns the sine.
func (t *Tensor) Sin() *Tensor { return t.unaryFloat(opSin, device.OpSin) }

// Cos returns the cosine.
func (t *Tensor) Cos() *Tensor { return t.unaryFloat(opCos, device.OpCos) }

// Tanh returns the hyperbolic tangent.
func (t *Tensor) Tanh() *Tensor { return t.unaryFloat(opTanh, device.OpTanh) }

// Sigmoid returns 1/(1+e^-t).
func (t *Tensor) Sigmoid() *Tensor { return t.unaryFloat(opSigmoid, device.OpSigmoid) }

// Relu returns max(t, 0) (NaN stays NaN).
func (t *Tensor) Relu() *Tensor { return t.unaryFloat(opRelu, device.OpRelu) }

// Gelu returns the exact (erf) GELU.
func (t *Tensor) Gelu() *Tensor { return t.unaryFloat(opGelu, device.OpGeluErf) }

// GeluTanh returns the tanh approximation of GELU.
func (t *Tensor) GeluTanh() *Tensor { return t.unaryFloat(opGeluTanh, device.OpGeluTanh) }

// Silu returns t*sigmoid(t).
func (t *Tensor) Silu() *Tensor { return t.unaryFloat(opSilu, device.OpSilu) }

// Softplus returns log(1 + exp(t)), a smooth Relu; as PyTorch's with beta 1,
// computed without overflow for every t.
func (t *Tensor) Softplus() *Tensor { return t.unaryFloat(opSoftplus, device.OpSoftplus) }

// Erf returns the error function.
func (t *Tensor) Erf() *Tensor { return t.unaryFloat(opErf, device.OpErf) }

// Floor rounds down.
func (t *Tensor) Floor() *Tensor { return t.unaryFloat(opFloor, device.OpFloor) }

// Ceil rounds up.
func (t *Tensor) Ceil() *Tensor { return t.unaryFloat(opCeil, device.OpCeil) }

// IsNaN returns a Bool tensor marking NaN elements.
func (t *Tensor) IsNaN() *Tensor {
	t.check("IsNaN")
	return elementwiseNoGrad("IsNaN", device.OpIsNaN, Bool, floatType(t.n.dtype).ComputeType(), []*Tensor{t})
}

// Not negates a Bool tensor.
func (t *Tensor) Not() *Tensor {
	t.check("Not")
	return elementwiseNoGrad("Not", device.OpNot, Bool, Bool, []*Tensor{t.Cast(Bool)})
}

// Clamp limits every element to [lo, hi] (NaN stays NaN). Its gradient is
// PyTorch's: one where lo ≤ t ≤ hi, bounds included, zero elsewhere.
func (t *Tensor) Clamp(lo, hi float64) *Tensor {
	t.check("Clamp")
	if lo > hi {
		usage("Clamp", "lo %g above hi %g", lo, hi)
	}
	x := t.Detach() // recorded below as one op
	out := x.Maximum(x.scalarLike(lo)).Minimum(x.scalarLike(hi))
	return recordGrad(opClamp, out, []*Tensor{t}, [2]float64{lo, hi})
}

// Eq compares elementwise for equality.
func (t *Tensor) Eq(o *Tensor) *Tensor { return t.compare("Eq", device.OpEq, o) }

// Ne compares elementwise for inequality.
func (t *Tensor) Ne(o *Tensor) *Tensor { return t.compare("Ne", device.OpNe, o) }

// Lt compares elementwise t < o.
func (t *Tensor) Lt(o *Tensor) *Tensor { return t.compare("Lt", device.OpLt, o) }

// Le compares elementwise t <= o.
func (t *Tensor) Le(o *Tensor) *Tensor { return t.compare("Le", device.OpLe, o) }

// Gt compares elementwise t > o.
func (t *Tensor) Gt(o *Tensor) *Tensor { return t.compare("Gt", device.OpGt, o) }

// Ge compares elementwise t >= o.
func (t *Tensor) Ge(o *Tensor) *Tensor { return t.compare("Ge", device.OpGe, o) }

// GtScalar compares elementwise t > v.
func (t *Tensor) GtScalar(v float64) *Tensor { return t.Gt(t.scalarLike(v)) }

// LtScalar compares elementwise t < v.
func (t *Tensor) LtScalar(v float64) *Tensor { return t.Lt(t.scalarLike(v)) }

// EqScalar compares elementwise t == v.
func (t *Tensor) EqScalar(v float64) *Tensor { return t.Eq(t.scalarLike(v)) }

// LogicalAnd is the elementwise and of two Bool tensors.
func (t *Tensor) LogicalAnd(o *Tensor) *Tensor {
	return elementwiseNoGrad("LogicalAnd", device.OpAnd, Bool, Bool, []*Tensor{t.Cast(Bool), o.Cast(Bool)})
}

// LogicalOr is the elementwise or of two Bool tensors.
func (t *Tensor) LogicalOr(o *Tensor) *Tensor {
	return elementwiseNoGrad("LogicalOr", device.OpOr, Bool, Bool, []*Tensor{t.Cast(Bool), o.Cast(Bool)})
}

// Where selects x where cond is true and y elsewhere, with broadcasting.
func Where(cond, x, y *Tensor) *Tensor {
	cond.check("Where")
	x.check("Where")
	y.check("Where")
	dt := promote(x.DType(), y.DType())
	return elementwise(opWhere, device.OpWhere, dt, dt.ComputeType(), []*Tensor{cond.Cast(Bool), x, y})
}

// Fma returns t*a + b in one rounding step, with broadcasting: in Float64
// when an operand is Float64, else in Float32.
func (t *Tensor) Fma(a, b *Tensor) *Tensor {
	t.check("Fma")
	a.check("Fma")
	b.check("Fma")
	dt := Float32
	if t.n.dtype == Float64 || a.n.dtype == Float64 || b.n.dtype == Float64 {
		dt = Float64
	}
	return elementwise(opFma, device.OpFma, dt, dt, []*Tensor{t, a, b})
}
