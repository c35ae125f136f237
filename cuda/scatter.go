//go:build cgo && linux

package cuda

import "github.com/shaderflow/shaderflow/tensor/device"

// Scatter is not implemented yet: it returns an error.
func (d *Device) Scatter(*device.ScatterKernel) error { return notImplemented("scatter") }
