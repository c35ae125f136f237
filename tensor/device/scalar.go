package device

import "math"

// The scalar functions that rows of the op table refer to: float ops are
// computed in float64 and rounded once, as their definition states.

// f64 lifts a float64 function to float32 through one rounding.
func f64(f func(float64) float64) func(float32) float32 {
	return func(x float32) float32 { return float32(f(float64(x))) }
}

func rsqrt64(x float64) float64 { return 1 / math.Sqrt(x) }

func geluErf64(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }

// geluTanh64 is the tanh approximation of GELU. The conversion rounds the
// cubic term on every architecture (arm64 would otherwise fuse it into the
// addition).
func geluTanh64(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+float64(0.044715*x*x*x))))
}

// geluErfGrad64 is the derivative of the exact GELU, Phi(x) + x phi(x).
// With a = |x| it is 1/2 erfc(a/sqrt 2) - a phi(a) for x < 0 (no 1 - Phi
// to cancel; the two terms cancel only near the derivative's zero at
// x = -0.7518) and 1 minus that for x >= 0; it tends to 0 at -Inf (below
// x = -14 it is under float32's range) and 1 at +Inf.
func geluErfGrad64(x float64) float64 {
	if math.IsInf(x, 0) {
		return math.Max(0, math.Copysign(1, x))
	}
	a := math.Abs(x)
	y := 0.5*math.Erfc(a/math.Sqrt2) - a*math.Exp(-0.5*a*a)/math.Sqrt(2*math.Pi)
	if x < 0 {
		return y
	}
	return 1 - y
}

// geluTanhGrad64 is the derivative of geluTanh64: with v = 2u, u its tanh's
// argument, and s = sigmoid(v) (1 + tanh u = 2s), it is
// s + x s (1-s) v', where 1-s = sigmoid(-v) keeps both tails accurate.
// The conversions round as in geluTanh64.
func geluTanhGrad64(x float64) float64 {
	if math.IsInf(x, 0) {
		return math.Max(0, math.Copysign(1, x))
	}
	c := 2 * math.Sqrt(2/math.Pi)
	v := c * (x + float64(0.044715*x*x*x))
	dv := c * (1 + float64(3*0.044715*x*x))
	s := Sigmoid64(v)
	return s + float64(x*dv)*s*Sigmoid64(-v)
}

// signOf is the sign of x; it keeps 0, -0 and NaN.
func signOf[T float32 | float64](x T) T {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x
}

// reluOf is max(x, 0) that keeps NaN.
func reluOf[T float32 | float64](x T) T {
	if x > 0 || x != x {
		return x
	}
	return 0
}

// maxOf and minOf propagate a NaN in either operand.
func maxOf[T float32 | float64](a, b T) T {
	if a != a || a > b {
		return a
	}
	return b
}

func minOf[T float32 | float64](a, b T) T {
	if a != a || a < b {
		return a
	}
	return b
}

func absI32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

func signI32(x int32) int32 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// floorDivI32 is floor division; division by zero yields zero.
func floorDivI32(a, b int32) int32 {
	if b == 0 {
		return 0
	}
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func maxI32(a, b int32) int32 { return max(a, b) }

func minI32(a, b int32) int32 { return min(a, b) }
