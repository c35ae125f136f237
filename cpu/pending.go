package cpu

import (
	"errors"

	"github.com/shaderflow/shaderflow/tensor/device"
)

var errPending = errors.New("cpu: conv and pool are being written")

// Conv is not yet available.
func (d *Device) Conv(k *device.ConvKernel) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return errPending
}

// Pool is not yet available.
func (d *Device) Pool(k *device.PoolKernel) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return errPending
}
