//go:build cgo && linux

package cuda

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Pool runs max or average pooling, forward or backward, plain or
// adaptive, with a kernel generated for its signature (see renderPool),
// after validating the kernel and checking that every buffer is a live
// buffer of this device. The geometry, shapes, strides and offsets are
// launch parameters.
func (d *Device) Pool(k *device.PoolKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	views := []device.View{k.X, k.Out}
	if plHasIndices(k) {
		views = append(views, k.Indices)
	}
	ptrs, err := d.viewAddresses("pool", views)
	if err != nil {
		return err
	}
	w := planPool(k, ptrs)
	if w == nil {
		return nil
	}
	m, err := d.generated(plSignature(k), func() string { return renderPool(k) }, "pool.cu", plEntry)
	if err != nil {
		return err
	}
	if err := d.launchWords(m, w); err != nil {
		return fmt.Errorf("cuda: pool: %w", err)
	}
	return nil
}
