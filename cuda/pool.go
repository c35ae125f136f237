//go:build cgo && linux

package cuda

import "github.com/shaderflow/shaderflow/tensor/device"

// Pool is not implemented yet: it returns an error.
func (d *Device) Pool(*device.PoolKernel) error { return notImplemented("pool") }
