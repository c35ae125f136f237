//go:build cgo

package vulkan

import (
	"errors"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// errPending is returned by the kinds whose encoders package gpu does not
// have yet.
var errPending = errors.New("vulkan: this kernel kind is being written")

// Reduce is not yet available.
func (d *Device) Reduce(k *device.ReduceKernel) error { return pending(k.Validate()) }

// MatMul is not yet available.
func (d *Device) MatMul(k *device.MatMulKernel) error { return pending(k.Validate()) }

// Conv is not yet available.
func (d *Device) Conv(k *device.ConvKernel) error { return pending(k.Validate()) }

// Pool is not yet available.
func (d *Device) Pool(k *device.PoolKernel) error { return pending(k.Validate()) }

// Gather is not yet available.
func (d *Device) Gather(k *device.GatherKernel) error { return pending(k.Validate()) }

// Scatter is not yet available.
func (d *Device) Scatter(k *device.ScatterKernel) error { return pending(k.Validate()) }

// Copy is not yet available.
func (d *Device) Copy(k *device.CopyKernel) error { return pending(k.Validate()) }

func pending(err error) error {
	if err != nil {
		return err
	}
	return errPending
}
