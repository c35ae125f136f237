//go:build cgo && linux

package cuda

import "github.com/shaderflow/shaderflow/tensor/device"

// Conv is not implemented yet: it returns an error.
func (d *Device) Conv(*device.ConvKernel) error { return notImplemented("conv") }
