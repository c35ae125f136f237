package device

import (
	"fmt"
	"math"
)

// DType is the element type of a buffer or a program register.
type DType uint8

// The element types. Float32 is computed everywhere; Float16 and BFloat16 are
// storage types that load as Float32; Bool is stored as one byte (0 or 1).
// Int64 and Float64 are computed in their own registers; Uint8 and Int8 are
// storage types that load as Int32 and store its low byte (PyTorch's
// wrapping). Backends need not support every type: Info.DTypes says which
// ones they do.
const (
	Invalid DType = iota
	Float32
	Float16
	BFloat16
	Int32
	Bool
	Int64
	Float64
	Uint8
	Int8

	numDTypes // one more than the largest type
)

var dtypeNames = [...]string{"invalid", "float32", "float16", "bfloat16", "int32", "bool",
	"int64", "float64", "uint8", "int8"}

// String returns the PyTorch-style name of the type.
func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// Size returns the number of bytes one element occupies in a buffer.
func (d DType) Size() int {
	switch d {
	case Int64, Float64:
		return 8
	case Float32, Int32:
		return 4
	case Float16, BFloat16:
		return 2
	case Bool, Uint8, Int8:
		return 1
	}
	return 0
}

// IsFloat reports whether d is one of the floating-point types.
func (d DType) IsFloat() bool { return d == Float32 || d == Float16 || d == BFloat16 || d == Float64 }

// IsInt reports whether d is one of the integer types (not Bool).
func (d DType) IsInt() bool { return d == Int32 || d == Int64 || d == Uint8 || d == Int8 }

// Valid reports whether d is a defined element type.
func (d DType) Valid() bool { return d >= Float32 && d < numDTypes }

// ComputeType is the register type a value of type d is loaded as: Float16
// and BFloat16 compute in Float32, Uint8 and Int8 in Int32; Float32,
// Float64, Int32, Int64 and Bool keep their type.
func (d DType) ComputeType() DType {
	switch d {
	case Float16, BFloat16:
		return Float32
	case Uint8, Int8:
		return Int32
	}
	return d
}

// IsRegister reports whether d is a program register type: Float32, Int32,
// Bool, Int64 or Float64.
func (d DType) IsRegister() bool { return d.Valid() && d.ComputeType() == d && d != Invalid }

// DTypeSet is a set of element types.
type DTypeSet uint32

// DTypes returns the set holding ts.
func DTypes(ts ...DType) DTypeSet {
	var s DTypeSet
	for _, t := range ts {
		s |= 1 << t
	}
	return s
}

// BaseDTypes are the types every backend stores and computes: a backend
// whose Info.DTypes is empty supports these.
var BaseDTypes = DTypes(Float32, Float16, BFloat16, Int32, Bool)

// AllDTypes is every element type.
var AllDTypes = DTypes(Float32, Float16, BFloat16, Int32, Bool, Int64, Float64, Uint8, Int8)

// Has reports whether t is in the set.
func (s DTypeSet) Has(t DType) bool { return t < 32 && s&(1<<t) != 0 }

// String lists the set's types in order, comma-separated.
func (s DTypeSet) String() string {
	out := ""
	for t := Float32; t < numDTypes; t++ {
		if s.Has(t) {
			if out != "" {
				out += ", "
			}
			out += t.String()
		}
	}
	return out
}

// Float32ToFloat16 converts f to IEEE 754 binary16 bits, rounding to nearest even.
func Float32ToFloat16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff
	switch {
	case exp == 0xff: // inf or nan
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp > 142: // overflow: 142 = 127+15
		return sign | 0x7c00
	case exp < 102: // too small even for a subnormal: rounds to zero
		return sign
	case exp < 113: // subnormal half
		mant |= 0x800000
		shift := uint32(126 - exp)
		half := mant >> shift
		rem := mant & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(exp-112)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && half&1 == 1) {
		half++ // may carry into the exponent, which is the correct rounding
	}
	return sign | uint16(half)
}

// Float64ToFloat16 converts x to IEEE 754 binary16 bits, rounding once to
// nearest even (through float32 rounded to odd, so never twice).
func Float64ToFloat16(x float64) uint16 { return Float32ToFloat16(Float32RoundedToOdd(x)) }

// Float64ToBFloat16 converts x to bfloat16 bits, rounding once to nearest
// even (through float32 rounded to odd, so never twice).
func Float64ToBFloat16(x float64) uint16 { return Float32ToBFloat16(Float32RoundedToOdd(x)) }

// Float32RoundedToOdd returns x truncated to float32 with the last bit set
// when that is inexact ("round to odd"). Rounding that value to nearest once
// more, to a format of at most 22 significant bits (float16, bfloat16),
// gives x rounded to that format directly, where float32(x) would round
// twice (a value just above a float16 midpoint can land on it, then round
// to even, down).
func Float32RoundedToOdd(x float64) float32 {
	f := float32(x)
	if x != x || float64(f) == x {
		return f // NaN, or exact
	}
	b := math.Float32bits(f)
	if math.IsInf(float64(f), 0) || math.Abs(float64(f)) > math.Abs(x) {
		b-- // toward zero: one below in magnitude (infinity becomes the largest finite value)
	}
	return math.Float32frombits(b | 1)
}

// Float16ToFloat32 converts IEEE 754 binary16 bits to float32 exactly.
func Float16ToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		f := float32(mant) / 16777216 // mant * 2^-24
		if sign != 0 {
			return -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

// Float32ToBFloat16 converts f to bfloat16 bits, rounding to nearest even.
func Float32ToBFloat16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 { // nan: keep it a quiet nan
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// BFloat16ToFloat32 converts bfloat16 bits to float32 exactly.
func BFloat16ToFloat32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }
