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
