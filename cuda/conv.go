//go:build cgo && linux

package cuda

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Conv runs a convolution in any mode with a kernel generated from its
// mode, spatial rank and epilogue (see renderConv), after validating the
// kernel and checking that every buffer is a live buffer of this device.
// Kernels of one signature share a module: the geometry, shapes, strides,
// offsets and constants are launch parameters.
func (d *Device) Conv(k *device.ConvKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	views := append(append([]device.View{k.A, k.B}, k.EpilogueInputs...), k.Outputs...)
	ptrs, err := d.viewAddresses("conv", views)
	if err != nil {
		return err
	}
	if done, err := d.convGEMM(k, ptrs); done || err != nil {
		return err
	}
	w, err := planConv(k, ptrs)
	if err != nil || w == nil {
		return err
	}
	m, err := d.generated(cvSignature(k), func() string { return renderConv(k) }, "conv.cu", cvEntry)
	if err != nil {
		return err
	}
	if cvBlockPerResult(k) {
		err = d.launchBlocks(m, d.tileGrid(w[0]), cvBlock, w)
	} else {
		err = d.launchWords(m, w)
	}
	if err != nil {
		return fmt.Errorf("cuda: conv: %w", err)
	}
	return nil
}

// viewAddresses returns the device address of each view's buffer, failing
// unless every one is a live buffer of this device.
func (d *Device) viewAddresses(kind string, views []device.View) ([]uint64, error) {
	ptrs := make([]uint64, len(views))
	for i, v := range views {
		b, err := d.own(v.Buf, fmt.Sprintf("%s: view %d", kind, i))
		if err != nil {
			return nil, err
		}
		ptrs[i] = uint64(b.ptr)
	}
	return ptrs, nil
}
