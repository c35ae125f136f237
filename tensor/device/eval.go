package device

import "math"

// The scalar semantics of every program op: the Float, Float2, Int and Int2
// functions of its row in the op table, and these helpers. They are the
// definition that every backend's kernels must match (within each op's
// documented error); the CPU reference backend calls them directly and the GPU
// code generators mirror them.

// UnaryF32 applies a float unary op.
func UnaryF32(op Op, x float32) float32 {
	if f := op.Info().Float; f != nil {
		return f(x)
	}
	panic("device: UnaryF32 of " + op.String())
}

// UnaryI32 applies an integer unary op (Neg, Abs, Sign).
func UnaryI32(op Op, x int32) int32 {
	if f := op.Info().Int; f != nil {
		return f(x)
	}
	panic("device: UnaryI32 of " + op.String())
}

// BinaryF32 applies a float arithmetic op (Add, Sub, Mul, Div, Pow, Max, Min).
func BinaryF32(op Op, a, b float32) float32 {
	if f := op.Info().Float2; f != nil {
		return f(a, b)
	}
	panic("device: BinaryF32 of " + op.String())
}

// BinaryI32 applies an integer arithmetic op. Div is floor division and
// division by zero yields zero.
func BinaryI32(op Op, a, b int32) int32 {
	if f := op.Info().Int2; f != nil {
		return f(a, b)
	}
	panic("device: BinaryI32 of " + op.String())
}

// Compare applies a comparison op to two values of one ordered type.
// Comparisons with NaN are false except Ne.
func Compare[T float32 | int32 | float64 | int64](op Op, a, b T) bool {
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

// Sigmoid64 is the logistic function, stable for large |x|.
func Sigmoid64(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
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
