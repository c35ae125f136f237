package ref

import "math"

// Rounding to the storage formats, computed in float64 from the formats'
// definitions (independently of any bit-twiddling converter): round to
// nearest, ties to even, with gradual underflow and overflow to infinity.

// roundFormat rounds x to a binary format with mant explicit mantissa bits
// and exponents from minExp (smallest normal) to maxExp.
func roundFormat(x float64, mant, minExp, maxExp int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	_, e := math.Frexp(x) // x = f * 2^e with 0.5 <= |f| < 1
	exp := max(e-1, minExp)
	quantum := math.Ldexp(1, exp-mant) // spacing of representable values near x
	r := math.RoundToEven(x/quantum) * quantum
	largest := math.Ldexp(2-math.Ldexp(1, -mant), maxExp)
	// Values at or beyond largest + half a quantum overflow.
	if math.Abs(r) > largest {
		return math.Copysign(math.Inf(1), x)
	}
	return r
}

// RoundFloat32 rounds x to the nearest float32.
func RoundFloat32(x float64) float64 { return float64(float32(x)) }

// RoundFloat16 rounds x to the nearest IEEE binary16 value.
func RoundFloat16(x float64) float64 { return roundFormat(x, 10, -14, 15) }

// RoundBFloat16 rounds x to the nearest bfloat16 value (from its float32
// rounding first, as a float32 tensor cast to bfloat16 is).
func RoundBFloat16(x float64) float64 { return roundFormat(RoundFloat32(x), 7, -126, 127) }

// RoundBFloat16Once rounds x to the nearest bfloat16 value directly, as a
// Float64 tensor cast to bfloat16 is.
func RoundBFloat16Once(x float64) float64 { return roundFormat(x, 7, -126, 127) }
