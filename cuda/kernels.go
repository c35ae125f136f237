//go:build cgo && linux

package cuda

import (
	"errors"
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// ErrNotImplemented is wrapped by the kernel kinds the backend lacks so far.
var ErrNotImplemented = errors.New("not implemented yet")

// notImplemented says that kind does not exist in this backend yet.
func notImplemented(kind string) error { return fmt.Errorf("cuda: %s %w", kind, ErrNotImplemented) }

// Elementwise is not implemented yet: it returns an error.
func (d *Device) Elementwise(*device.ElementwiseKernel) error { return notImplemented("elementwise") }

// Reduce is not implemented yet: it returns an error.
func (d *Device) Reduce(*device.ReduceKernel) error { return notImplemented("reduce") }

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
