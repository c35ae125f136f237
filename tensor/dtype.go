package tensor

import "github.com/shaderflow/shaderflow/tensor/device"

// DType is a tensor element type.
type DType = device.DType

// The element types.
const (
	Float32  = device.Float32
	Float16  = device.Float16
	BFloat16 = device.BFloat16
	Int32    = device.Int32
	Bool     = device.Bool
)
