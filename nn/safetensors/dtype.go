package safetensors

import "github.com/shaderflow/shaderflow/tensor/device"

// DType is a tensor element type, spelled as in the safetensors header.
type DType string

// The element types the format defines with whole-byte elements. F32, F16,
// BF16 and I32 convert to and from Go slices; the others are read and written
// as raw bytes (Int32 also widens the small integer types and narrows 64-bit
// integers with a range check; Float32 also rounds F64).
const (
	Bool   DType = "BOOL"
	U8     DType = "U8"
	I8     DType = "I8"
	F8E5M2 DType = "F8_E5M2"
	F8E4M3 DType = "F8_E4M3"
	I16    DType = "I16"
	U16    DType = "U16"
	F16    DType = "F16"
	BF16   DType = "BF16"
	I32    DType = "I32"
	U32    DType = "U32"
	F32    DType = "F32"
	F64    DType = "F64"
	I64    DType = "I64"
	U64    DType = "U64"
)

// dtypeOrder lists the dtypes in the reference implementation's order, which
// is increasing alignment; Write sorts tensors by descending position here.
var dtypeOrder = []DType{Bool, U8, I8, F8E5M2, F8E4M3, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64}

// dtypeRank maps a dtype to its position in dtypeOrder.
var dtypeRank = func() map[DType]int {
	m := make(map[DType]int, len(dtypeOrder))
	for i, d := range dtypeOrder {
		m[d] = i
	}
	return m
}()

// Size returns the bytes one element occupies, or 0 for an unknown dtype.
func (d DType) Size() int {
	switch d {
	case Bool, U8, I8, F8E5M2, F8E4M3:
		return 1
	case I16, U16, F16, BF16:
		return 2
	case I32, U32, F32:
		return 4
	case F64, I64, U64:
		return 8
	}
	return 0
}

// Valid reports whether d is one of the dtypes above.
func (d DType) Valid() bool { return d.Size() != 0 }

// Device returns the device contract's element type for d, when it has one
// (F32, F16, BF16, I32, BOOL, I64, F64, U8 and I8).
func (d DType) Device() (device.DType, bool) {
	switch d {
	case I64:
		return device.Int64, true
	case F64:
		return device.Float64, true
	case U8:
		return device.Uint8, true
	case I8:
		return device.Int8, true
	case F32:
		return device.Float32, true
	case F16:
		return device.Float16, true
	case BF16:
		return device.BFloat16, true
	case I32:
		return device.Int32, true
	case Bool:
		return device.Bool, true
	}
	return device.Invalid, false
}

// FromDevice returns the safetensors dtype of a device contract element type.
func FromDevice(t device.DType) (DType, bool) {
	for _, d := range []DType{F32, F16, BF16, I32, Bool, I64, F64, U8, I8} {
		if dt, _ := d.Device(); dt == t {
			return d, true
		}
	}
	return "", false
}

// isFloat reports whether d is a floating-point type (the 8-bit float types
// included).
func (d DType) isFloat() bool {
	switch d {
	case F8E5M2, F8E4M3, F16, BF16, F32, F64:
		return true
	}
	return false
}
