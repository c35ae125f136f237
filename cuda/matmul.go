//go:build cgo && linux

package cuda

import "github.com/shaderflow/shaderflow/tensor/device"

// MatMul is not implemented yet: it returns an error.
func (d *Device) MatMul(*device.MatMulKernel) error { return notImplemented("matmul") }
