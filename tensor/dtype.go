package tensor

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// DType is a tensor element type.
type DType = device.DType

// The element types. Every backend supports Float32, Float16, BFloat16,
// Int32 and Bool; Int64, Float64, Uint8 and Int8 only where the device's
// Info().DTypes lists them (the CPU backend supports all). An operation that
// would make a tensor of a type the device lacks records an error naming the
// type and the backend, returned where the tensor is read or realized.
const (
	Float32  = device.Float32
	Float16  = device.Float16
	BFloat16 = device.BFloat16
	Int32    = device.Int32
	Bool     = device.Bool
	Int64    = device.Int64
	Float64  = device.Float64
	Uint8    = device.Uint8
	Int8     = device.Int8
)

// Supports reports whether the device stores and computes tensors of dt.
func (d *Device) Supports(dt DType) bool { return d.info.SupportedDTypes().Has(dt) }

// dtypeError returns the error for a tensor of dt on d, or nil when d
// supports dt.
func (d *Device) dtypeError(dt DType) error {
	if d.Supports(dt) {
		return nil
	}
	return fmt.Errorf("tensor: the %s backend does not support %s tensors (it supports %s)",
		d.info.Backend, dt, d.info.SupportedDTypes())
}
