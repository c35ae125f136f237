package vec

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Float64 references for the unary kernels: device.UnaryF32's formulas
// without the final rounding, so that errors can be measured in fractions
// of an ulp.

// ref64 returns op(x) in float64.
func ref64(op device.Op, x float32) float64 {
	f := float64(x)
	switch op {
	case device.OpExp:
		return math.Exp(f)
	case device.OpLog:
		return math.Log(f)
	case device.OpTanh:
		return math.Tanh(f)
	case device.OpSigmoid:
		return device.Sigmoid64(f)
	case device.OpErf:
		return math.Erf(f)
	case device.OpGeluErf:
		if f < 0 && !math.IsInf(f, -1) {
			return 0.5 * f * math.Erfc(-f/math.Sqrt2) // 1+erf cancels
		}
		return 0.5 * f * (1 + math.Erf(f/math.Sqrt2))
	case device.OpGeluTanh:
		return geluTanh64(f)
	case device.OpSilu:
		return f * device.Sigmoid64(f)
	case device.OpGeluErfGrad, device.OpGeluTanhGrad:
		return device.UnaryF64(op, f)
	case device.OpSin:
		return math.Sin(f)
	case device.OpCos:
		return math.Cos(f)
	case device.OpRsqrt:
		return 1 / math.Sqrt(f)
	}
	return float64(device.UnaryF32(op, x))
}

// geluTanh64 is the tanh GELU in float64, written as x*sigmoid(2u) where the
// direct formula 1+tanh(u) cancels (u < 0), so that the reference itself is
// accurate in the far negative tail.
func geluTanh64(f float64) float64 {
	u := math.Sqrt(2/math.Pi) * (f + 0.044715*f*f*f)
	if u >= 0 || math.IsNaN(u) {
		return 0.5 * f * (1 + math.Tanh(u))
	}
	if math.IsInf(f, -1) {
		return math.NaN()
	}
	return f * device.Sigmoid64(2*u)
}

// ulp32 returns the spacing of float32 numbers at the magnitude of y.
func ulp32(y float64) float64 {
	a := math.Abs(y)
	if a < 0x1p-126 {
		return 0x1p-149
	}
	if a > math.MaxFloat32 {
		a = math.MaxFloat32
	}
	_, e := math.Frexp(a)
	return math.Ldexp(1, e-24)
}

// errULP returns |got-ref| in ulps of ref and in absolute terms. Matching
// NaNs and infinities are 0; a mismatch is +Inf.
func errULP(got float32, ref float64) (ulps, abs float64) {
	g := float64(got)
	switch {
	case math.IsNaN(ref) || math.IsNaN(g):
		if math.IsNaN(ref) && math.IsNaN(g) {
			return 0, 0
		}
		return math.Inf(1), math.Inf(1)
	case math.IsInf(g, 0) || math.Abs(ref) > math.MaxFloat32:
		if float64(float32(ref)) == g {
			return 0, 0
		}
		return math.Inf(1), math.Inf(1)
	}
	d := math.Abs(g - ref)
	return d / ulp32(ref), d
}
