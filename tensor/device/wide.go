package device

import "math"

// The scalar semantics of Int64 and Float64 registers. Float64 registers
// compute each float op in float64 with the math package (no rounding to
// float32); Int64 registers wrap on overflow like Int32 ones, and Div is
// floor division with division by zero yielding zero. An op is defined on a
// wide register type exactly when WideOK says so; validation rejects the
// others.

// unaryF64 is the float64 definition of the float unary ops defined on
// Float64 registers (Float32's rows round these, or the same formulas, once).
var unaryF64 = map[Op]func(float64) float64{
	OpNeg: func(x float64) float64 { return -x }, OpAbs: math.Abs, OpSign: signOf[float64],
	OpExp: math.Exp, OpLog: math.Log, OpSqrt: math.Sqrt, OpRsqrt: rsqrt64,
	OpRecip: func(x float64) float64 { return 1 / x }, OpSin: math.Sin, OpCos: math.Cos,
	OpTanh: math.Tanh, OpSigmoid: Sigmoid64, OpRelu: reluOf[float64], OpErf: math.Erf,
	OpGeluErf: geluErf64, OpGeluTanh: geluTanh64,
	OpGeluErfGrad: geluErfGrad64, OpGeluTanhGrad: geluTanhGrad64,
	OpSilu:     func(x float64) float64 { return x * Sigmoid64(x) },
	OpSoftplus: softplus64, OpFloor: math.Floor, OpCeil: math.Ceil,
	OpLog1p: math.Log1p, OpExpm1: math.Expm1, OpLog2: math.Log2, OpSinh: math.Sinh,
	OpCosh: math.Cosh, OpAtan: math.Atan, OpAsin: math.Asin, OpAcos: math.Acos,
	OpRound: math.RoundToEven, OpTrunc: math.Trunc,
	// Rounded once to the storage type: through float32 they would round twice.
	OpRoundF16:  func(x float64) float64 { return float64(Float16ToFloat32(Float64ToFloat16(x))) },
	OpRoundBF16: func(x float64) float64 { return float64(BFloat16ToFloat32(Float64ToBFloat16(x))) },
}

// binaryF64 is the float64 definition of the binary float ops.
var binaryF64 = map[Op]func(a, b float64) float64{
	OpAdd: func(a, b float64) float64 { return a + b },
	OpSub: func(a, b float64) float64 { return a - b },
	OpMul: func(a, b float64) float64 { return a * b },
	OpDiv: func(a, b float64) float64 { return a / b },
	OpPow: math.Pow, OpMax: maxOf[float64], OpMin: minOf[float64], OpAtan2: math.Atan2, OpFmod: math.Mod,
}

// WideOK reports whether op is defined on registers of the wide type t
// (Int64 or Float64): the integer ops of TypesNumeric on Int64; every float
// op with a float64 definition on Float64; comparisons, selections, casts,
// inputs, constants and IsNaN (Float64) as for the narrow types.
func WideOK(op Op, t DType) bool {
	switch op.Info().Types {
	case TypesNumeric:
		if t == Int64 {
			return true
		}
		return unaryF64[op] != nil || binaryF64[op] != nil
	case TypesFloat:
		return t == Float64 && (unaryF64[op] != nil || binaryF64[op] != nil || op == OpFma)
	case TypesTest:
		return t == Float64
	case TypesCompare, TypesSelect, TypesCast, TypesInput, TypesConst:
		return true
	}
	return false
}

// UnaryF64Func returns the float64 definition of a unary op, or nil when
// the op has none: for interpreters that look it up once per kernel.
func UnaryF64Func(op Op) func(float64) float64 { return unaryF64[op] }

// BinaryF64Func returns the float64 definition of a binary op, or nil.
func BinaryF64Func(op Op) func(a, b float64) float64 { return binaryF64[op] }

// UnaryF64 applies a float unary op to a Float64 register.
func UnaryF64(op Op, x float64) float64 {
	if f := unaryF64[op]; f != nil {
		return f(x)
	}
	panic("device: UnaryF64 of " + op.String())
}

// BinaryF64 applies a float binary op to Float64 registers.
func BinaryF64(op Op, a, b float64) float64 {
	if f := binaryF64[op]; f != nil {
		return f(a, b)
	}
	panic("device: BinaryF64 of " + op.String())
}

// UnaryI64 applies an integer unary op (Neg, Abs, Sign) to an Int64 register.
func UnaryI64(op Op, x int64) int64 {
	switch op {
	case OpNeg:
		return -x
	case OpAbs:
		if x < 0 {
			return -x
		}
		return x
	case OpSign:
		return int64(signI32(int32(max(min(x, 1), -1))))
	}
	panic("device: UnaryI64 of " + op.String())
}

// BinaryI64 applies an integer binary op to Int64 registers: wrapping Add,
// Sub, Mul; floor Div (zero for a zero divisor); Max; Min.
func BinaryI64(op Op, a, b int64) int64 {
	switch op {
	case OpAdd:
		return a + b
	case OpSub:
		return a - b
	case OpMul:
		return a * b
	case OpDiv:
		if b == 0 {
			return 0
		}
		if b == -1 { // MinInt64 / -1 wraps, as in two's complement
			return -a
		}
		q := a / b
		if a%b != 0 && (a < 0) != (b < 0) {
			q--
		}
		return q
	case OpMax:
		return max(a, b)
	case OpMin:
		return min(a, b)
	}
	panic("device: BinaryI64 of " + op.String())
}

// FloatToInt64 converts like a cast: truncation toward zero, NaN to zero,
// saturating at the int64 range (PyTorch's result there is undefined).
func FloatToInt64(x float64) int64 {
	switch {
	case x != x:
		return 0
	case x >= 9223372036854775807:
		return math.MaxInt64
	case x <= -9223372036854775808:
		return math.MinInt64
	}
	return int64(x)
}

// Float64ToInt32 converts like a cast from a Float64 register to Int32:
// truncation toward zero, NaN to zero, saturating at the int32 range.
func Float64ToInt32(x float64) int32 {
	switch {
	case x != x:
		return 0
	case x >= math.MaxInt32:
		return math.MaxInt32
	case x <= math.MinInt32:
		return math.MinInt32
	}
	return int32(x)
}

// StoreInt32 converts an Int32 register to the storage type dt (Int32,
// Uint8 or Int8) the way a store does: Uint8 and Int8 keep the low byte,
// as PyTorch's integer casts wrap.
func StoreInt32(x int32, dt DType) int32 {
	switch dt {
	case Uint8:
		return int32(uint8(x))
	case Int8:
		return int32(int8(x))
	}
	return x
}

// softplus64 is log(1+e^x) without overflow; it keeps NaN.
func softplus64(x float64) float64 {
	if x != x {
		return x
	}
	return max(x, 0) + math.Log1p(math.Exp(-math.Abs(x)))
}
