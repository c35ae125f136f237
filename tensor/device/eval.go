package device

import "math"

// The scalar semantics of every program op. These functions are the
// definition that every backend's kernels must match (within each op's
// documented error); the CPU reference backend calls them directly and the GPU
// code generators mirror them.

// UnaryF32 applies a float unary op.
func UnaryF32(op Op, x float32) float32 {
	f := float64(x)
	switch op {
	case OpNeg:
		return -x
	case OpAbs:
		return float32(math.Abs(f))
	case OpSign:
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x // keeps 0, -0 and NaN
	case OpExp:
		return float32(math.Exp(f))
	case OpLog:
		return float32(math.Log(f))
	case OpSqrt:
		return float32(math.Sqrt(f))
	case OpRsqrt:
		return float32(1 / math.Sqrt(f))
	case OpRecip:
		return 1 / x
	case OpSin:
		return float32(math.Sin(f))
	case OpCos:
		return float32(math.Cos(f))
	case OpTanh:
		return float32(math.Tanh(f))
	case OpSigmoid:
		return float32(Sigmoid64(f))
	case OpRelu:
		if x > 0 || x != x {
			return x
		}
		return 0
	case OpErf:
		return float32(math.Erf(f))
	case OpGeluErf:
		return float32(0.5 * f * (1 + math.Erf(f/math.Sqrt2)))
	case OpGeluTanh:
		// The conversion rounds the cubic term on every architecture (arm64
		// would otherwise fuse it into the addition).
		return float32(0.5 * f * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(f+float64(0.044715*f*f*f)))))
	case OpSilu:
		return float32(f * Sigmoid64(f))
	case OpRoundF16:
		return Float16ToFloat32(Float32ToFloat16(x))
	case OpRoundBF16:
		return BFloat16ToFloat32(Float32ToBFloat16(x))
	case OpFloor:
		return float32(math.Floor(f))
	case OpCeil:
		return float32(math.Ceil(f))
	}
	panic("device: UnaryF32 of " + op.String())
}

// Sigmoid64 is the logistic function, stable for large |x|.
func Sigmoid64(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// UnaryI32 applies an integer unary op (Neg, Abs, Sign).
func UnaryI32(op Op, x int32) int32 {
	switch op {
	case OpNeg:
		return -x
	case OpAbs:
		if x < 0 {
			return -x
		}
		return x
	case OpSign:
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	}
	panic("device: UnaryI32 of " + op.String())
}

// BinaryF32 applies a float arithmetic op (Add, Sub, Mul, Div, Pow, Max, Min).
func BinaryF32(op Op, a, b float32) float32 {
	switch op {
	case OpAdd:
		return a + b
	case OpSub:
		return a - b
	case OpMul:
		return a * b
	case OpDiv:
		return a / b
	case OpPow:
		return float32(math.Pow(float64(a), float64(b)))
	case OpMax:
		if a != a || a > b {
			return a
		}
		return b
	case OpMin:
		if a != a || a < b {
			return a
		}
		return b
	}
	panic("device: BinaryF32 of " + op.String())
}

// BinaryI32 applies an integer arithmetic op. Div is floor division and
// division by zero yields zero.
func BinaryI32(op Op, a, b int32) int32 {
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
		q := a / b
		if (a%b != 0) && ((a < 0) != (b < 0)) {
			q--
		}
		return q
	case OpMax:
		return max(a, b)
	case OpMin:
		return min(a, b)
	}
	panic("device: BinaryI32 of " + op.String())
}

// Compare applies a comparison op to two values of one ordered type.
// Comparisons with NaN are false except Ne.
func Compare[T float32 | int32](op Op, a, b T) bool {
	switch op {
	case OpEq:
		return a == b
	case OpNe:
		return a != b
	case OpLt:
		return a < b
	case OpLe:
		return a <= b
	case OpGt:
		return a > b
	case OpGe:
		return a >= b
	}
	panic("device: Compare of " + op.String())
}

// FloatToInt32 converts like a cast: truncation toward zero, NaN to zero,
// saturating at the int32 range.
func FloatToInt32(x float32) int32 {
	switch {
	case x != x:
		return 0
	case x >= 2147483647:
		return math.MaxInt32
	case x <= -2147483648:
		return math.MinInt32
	}
	return int32(x)
}
