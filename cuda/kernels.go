//go:build cgo && linux

package cuda

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// notImplemented says that kind does not exist in this backend yet.
func notImplemented(kind string) error { return fmt.Errorf("cuda: %s %w", kind, ErrNotImplemented) }

// MatMul is not implemented yet: it returns an error.
func (d *Device) MatMul(*device.MatMulKernel) error { return notImplemented("matmul") }

// Conv is not implemented yet: it returns an error.
func (d *Device) Conv(*device.ConvKernel) error { return notImplemented("conv") }

// Pool is not implemented yet: it returns an error.
func (d *Device) Pool(*device.PoolKernel) error { return notImplemented("pool") }

// Gather is not implemented yet: it returns an error.
func (d *Device) Gather(*device.GatherKernel) error { return notImplemented("gather") }

// Scatter is not implemented yet: it returns an error.
func (d *Device) Scatter(*device.ScatterKernel) error { return notImplemented("scatter") }
