//go:build cgo && linux

package cuda

import "github.com/shaderflow/shaderflow/tensor/device"

// Gather is not implemented yet: it returns an error.
func (d *Device) Gather(*device.GatherKernel) error { return notImplemented("gather") }
