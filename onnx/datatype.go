package onnx

import "fmt"

// DataType is onnx.TensorProto.DataType.
type DataType int32

// The ONNX element types.
const (
	Undefined DataType = 0
	Float     DataType = 1
	Uint8     DataType = 2
	Int8      DataType = 3
	Uint16    DataType = 4
	Int16     DataType = 5
	Int32     DataType = 6
	Int64     DataType = 7
	String    DataType = 8
	Bool      DataType = 9
	Float16   DataType = 10
	Double    DataType = 11
	Uint32    DataType = 12
	Uint64    DataType = 13
	BFloat16  DataType = 16
)

var dataTypeNames = map[DataType]string{
	Undefined: "UNDEFINED", Float: "FLOAT", Uint8: "UINT8", Int8: "INT8", Uint16: "UINT16",
	Int16: "INT16", Int32: "INT32", Int64: "INT64", String: "STRING", Bool: "BOOL",
	Float16: "FLOAT16", Double: "DOUBLE", Uint32: "UINT32", Uint64: "UINT64", BFloat16: "BFLOAT16",
}

// String returns the type's name in onnx.proto.
func (d DataType) String() string {
	if s, ok := dataTypeNames[d]; ok {
		return s
	}
	return fmt.Sprintf("DataType(%d)", int32(d))
}

// Size returns the bytes of one element in raw_data, or 0 for a type this
// package does not read (STRING, complex and 8-bit float types, unknown).
func (d DataType) Size() int {
	switch d {
	case Uint8, Int8, Bool:
		return 1
	case Uint16, Int16, Float16, BFloat16:
		return 2
	case Float, Int32, Uint32:
		return 4
	case Int64, Double, Uint64:
		return 8
	}
	return 0
}

// IsFloat reports whether d is a floating-point type.
func (d DataType) IsFloat() bool {
	return d == Float || d == Double || d == Float16 || d == BFloat16
}
