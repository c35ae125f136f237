package data

import (
	"encoding/binary"
	"fmt"
	"math"
)

// ElemType is the element type code of an IDX file (the third magic byte).
type ElemType uint8

// The IDX element types. Multi-byte elements are stored big-endian.
const (
	U8  ElemType = 0x08 // unsigned byte
	I8  ElemType = 0x09 // signed byte
	I16 ElemType = 0x0B // 16-bit signed integer
	I32 ElemType = 0x0C // 32-bit signed integer
	F32 ElemType = 0x0D // IEEE 754 binary32
	F64 ElemType = 0x0E // IEEE 754 binary64
)

// Size returns the bytes one element occupies, or 0 for an unknown code.
func (t ElemType) Size() int {
	switch t {
	case U8, I8:
		return 1
	case I16:
		return 2
	case I32, F32:
		return 4
	case F64:
		return 8
	}
	return 0
}

// IsFloat reports whether t is F32 or F64.
func (t ElemType) IsFloat() bool { return t == F32 || t == F64 }

// String names the type ("u8", "i8", "i16", "i32", "f32", "f64").
func (t ElemType) String() string {
	switch t {
	case U8:
		return "u8"
	case I8:
		return "i8"
	case I16:
		return "i16"
	case I32:
		return "i32"
	case F32:
		return "f32"
	case F64:
		return "f64"
	}
	return fmt.Sprintf("idxtype(0x%02x)", uint8(t))
}

// At returns element i (in row-major order) converted to float64, which
// represents every IDX type exactly. It panics if i is out of range.
func (x *IDX) At(i int) float64 {
	s := x.Type.Size()
	if i < 0 || (i+1)*s > len(x.Data) {
		panic(fmt.Sprintf("idx: At(%d) out of range for %s data of shape %v", i, x.Type, x.Dims))
	}
	b := x.Data[i*s:]
	switch x.Type {
	case U8:
		return float64(b[0])
	case I8:
		return float64(int8(b[0]))
	case I16:
		return float64(int16(binary.BigEndian.Uint16(b)))
	case I32:
		return float64(int32(binary.BigEndian.Uint32(b)))
	case F32:
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
	case F64:
		return math.Float64frombits(binary.BigEndian.Uint64(b))
	}
	panic(fmt.Sprintf("idx: At on unknown element type %s", x.Type))
}

// Float32s returns all elements converted to float32 (F64 values are rounded
// to nearest).
func (x *IDX) Float32s() []float32 {
	out := make([]float32, len(x.Data)/max(x.Type.Size(), 1))
	if x.Type == U8 {
		for i, v := range x.Data[:len(out)] {
			out[i] = float32(v)
		}
		return out
	}
	for i := range out {
		out[i] = float32(x.At(i))
	}
	return out
}

// Int32s returns all elements of an integer type as int32. Float types return
// an error: converting them would silently truncate.
func (x *IDX) Int32s() ([]int32, error) {
	if x.Type.IsFloat() || x.Type.Size() == 0 {
		return nil, fmt.Errorf("idx: Int32s of %s data of shape %v: not an integer type", x.Type, x.Dims)
	}
	out := make([]int32, len(x.Data)/x.Type.Size())
	if x.Type == U8 {
		for i, v := range x.Data[:len(out)] {
			out[i] = int32(v)
		}
		return out, nil
	}
	for i := range out {
		out[i] = int32(x.At(i))
	}
	return out, nil
}
