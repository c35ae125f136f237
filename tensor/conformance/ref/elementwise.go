package ref

import "math"

// Elementwise operations with PyTorch's float semantics (NaN propagates
// through Maximum, Minimum, Clamp and Relu). Comparisons return 1 for true and
// 0 for false.

// Add returns a+b.
func Add(a, b *Array) *Array { return Map2("Add", a, b, func(x, y float64) float64 { return x + y }) }

// Sub returns a-b.
func Sub(a, b *Array) *Array { return Map2("Sub", a, b, func(x, y float64) float64 { return x - y }) }

// Mul returns a*b.
func Mul(a, b *Array) *Array { return Map2("Mul", a, b, func(x, y float64) float64 { return x * y }) }

// Div returns a/b.
func Div(a, b *Array) *Array { return Map2("Div", a, b, func(x, y float64) float64 { return x / y }) }

// FloorDiv returns floor(a/b), integer division rounding toward minus infinity.
func FloorDiv(a, b *Array) *Array {
	return Map2("FloorDiv", a, b, func(x, y float64) float64 { return math.Floor(x / y) })
}

// Pow returns a to the power b.
func Pow(a, b *Array) *Array { return Map2("Pow", a, b, math.Pow) }

// Maximum returns the larger of a and b, NaN if either is NaN.
func Maximum(a, b *Array) *Array { return Map2("Maximum", a, b, maxNaN) }

// Minimum returns the smaller of a and b, NaN if either is NaN.
func Minimum(a, b *Array) *Array { return Map2("Minimum", a, b, minNaN) }

func maxNaN(x, y float64) float64 {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.NaN()
	}
	return math.Max(x, y)
}

func minNaN(x, y float64) float64 {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.NaN()
	}
	return math.Min(x, y)
}

// Neg returns -a.
func Neg(a *Array) *Array { return Map(a, func(x float64) float64 { return -x }) }

// Abs returns |a|.
func Abs(a *Array) *Array { return Map(a, math.Abs) }

// Exp returns e^a.
func Exp(a *Array) *Array { return Map(a, math.Exp) }

// Log returns the natural logarithm of a.
func Log(a *Array) *Array { return Map(a, math.Log) }

// Sqrt returns the square root of a.
func Sqrt(a *Array) *Array { return Map(a, math.Sqrt) }

// Rsqrt returns 1/sqrt(a).
func Rsqrt(a *Array) *Array { return Map(a, func(x float64) float64 { return 1 / math.Sqrt(x) }) }

// Sin returns the sine of a.
func Sin(a *Array) *Array { return Map(a, math.Sin) }

// Cos returns the cosine of a.
func Cos(a *Array) *Array { return Map(a, math.Cos) }

// Tanh returns the hyperbolic tangent of a.
func Tanh(a *Array) *Array { return Map(a, math.Tanh) }

// Sigmoid returns 1/(1+e^-a).
func Sigmoid(a *Array) *Array { return Map(a, sigmoid) }

// Relu returns max(a, 0), keeping NaN.
func Relu(a *Array) *Array {
	return Map(a, func(x float64) float64 {
		if x > 0 || math.IsNaN(x) {
			return x
		}
		return 0
	})
}

// Gelu returns the exact (erf) GELU, x/2 * (1 + erf(x/sqrt 2)).
func Gelu(a *Array) *Array {
	return Map(a, func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) })
}

// GeluTanh returns the tanh approximation of GELU.
func GeluTanh(a *Array) *Array {
	c := math.Sqrt(2 / math.Pi)
	return Map(a, func(x float64) float64 { return 0.5 * x * (1 + math.Tanh(c*(x+0.044715*x*x*x))) })
}

// GeluGrad returns the exact GELU's derivative Phi(x) + x phi(x), written
// with erfc for x < 0 so that Phi's small values keep their accuracy; 0 at
// -Inf, 1 at +Inf.
func GeluGrad(a *Array) *Array {
	return Map(a, func(x float64) float64 {
		if math.IsInf(x, 0) {
			return math.Max(math.Copysign(1, x), 0)
		}
		pdf := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
		if x < 0 {
			return math.Erfc(-x/math.Sqrt2)/2 + x*pdf
		}
		return (1+math.Erf(x/math.Sqrt2))/2 + x*pdf
	})
}

// GeluTanhGrad returns the derivative of GeluTanh, s + x s (1-s) v' with
// s = sigmoid(v), v = 2 sqrt(2/pi) (x + 0.044715 x^3); 0 at -Inf, 1 at +Inf.
func GeluTanhGrad(a *Array) *Array {
	c := 2 * math.Sqrt(2/math.Pi)
	return Map(a, func(x float64) float64 {
		if math.IsInf(x, 0) {
			return math.Max(math.Copysign(1, x), 0)
		}
		v := c * (x + 0.044715*x*x*x)
		s := sigmoid(v)
		return s + x*c*(1+3*0.044715*x*x)*s*sigmoid(-v)
	})
}

// Silu returns x*sigmoid(x).
func Silu(a *Array) *Array { return Map(a, func(x float64) float64 { return x * sigmoid(x) }) }

// Clamp limits a to [lo, hi] (NaN stays NaN).
func Clamp(a *Array, lo, hi float64) *Array {
	return Map(a, func(x float64) float64 { return minNaN(maxNaN(x, lo), hi) })
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

func boolean(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Eq returns a == b.
func Eq(a, b *Array) *Array {
	return Map2("Eq", a, b, func(x, y float64) float64 { return boolean(x == y) })
}

// Ne returns a != b (true for NaN).
func Ne(a, b *Array) *Array {
	return Map2("Ne", a, b, func(x, y float64) float64 { return boolean(x != y) })
}

// Lt returns a < b.
func Lt(a, b *Array) *Array {
	return Map2("Lt", a, b, func(x, y float64) float64 { return boolean(x < y) })
}

// Le returns a <= b.
func Le(a, b *Array) *Array {
	return Map2("Le", a, b, func(x, y float64) float64 { return boolean(x <= y) })
}

// Gt returns a > b.
func Gt(a, b *Array) *Array {
	return Map2("Gt", a, b, func(x, y float64) float64 { return boolean(x > y) })
}

// Ge returns a >= b.
func Ge(a, b *Array) *Array {
	return Map2("Ge", a, b, func(x, y float64) float64 { return boolean(x >= y) })
}

// Where returns x where cond is non-zero and y elsewhere, broadcasting all three.
func Where(cond, x, y *Array) *Array {
	return MapN("Where", func(v []float64) float64 {
		if v[0] != 0 {
			return v[1]
		}
		return v[2]
	}, cond, x, y)
}

// Floor rounds down.
func Floor(a *Array) *Array { return Map(a, math.Floor) }

// Ceil rounds up.
func Ceil(a *Array) *Array { return Map(a, math.Ceil) }

// Sign is -1, 0 or 1 by the sign of each element (NaN stays NaN).
func Sign(a *Array) *Array {
	return Map(a, func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x
	})
}

// Erf is the error function.
func Erf(a *Array) *Array { return Map(a, math.Erf) }

// Reciprocal returns 1/a.
func Reciprocal(a *Array) *Array { return Map(a, func(x float64) float64 { return 1 / x }) }

// IsNaN marks NaN elements with 1.
func IsNaN(a *Array) *Array { return Map(a, func(x float64) float64 { return boolean(math.IsNaN(x)) }) }

// Not is logical negation: 1 where a is zero.
func Not(a *Array) *Array { return Map(a, func(x float64) float64 { return boolean(x == 0) }) }

// And is 1 where both a and b are non-zero.
func And(a, b *Array) *Array {
	return Map2("And", a, b, func(x, y float64) float64 { return boolean(x != 0 && y != 0) })
}

// Or is 1 where a or b is non-zero.
func Or(a, b *Array) *Array {
	return Map2("Or", a, b, func(x, y float64) float64 { return boolean(x != 0 || y != 0) })
}
