//go:build cgo && linux

package cuda

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Reduce runs k with a kernel generated from its reduction and programs
// (see renderReduce), after validating the kernel and checking that every
// buffer is a live buffer of this device. Kernels of one signature share a
// module.
func (d *Device) Reduce(k *device.ReduceKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	var views []device.View
	views = append(append(append(views, k.Inputs...), k.EpilogueInputs...), k.Outputs...)
	ptrs := make([]uint64, 0, len(views))
	for i, v := range views {
		b, err := d.own(v.Buf, fmt.Sprintf("reduce: view %d", i))
		if err != nil {
			return err
		}
		ptrs = append(ptrs, uint64(b.ptr))
	}
	launches, err := planReduce(k, ptrs)
	if err != nil || len(launches) == 0 {
		return err
	}
	sig := rdSignature(k)
	m, ok := d.programs[sig]
	if !ok {
		if m, err = d.kernel(renderReduce(k), "reduce.cu", rdEntry); err != nil {
			return err
		}
		d.programs[sig] = m
	}
	for _, w := range launches {
		if err := d.launchWords(m, w); err != nil {
			return fmt.Errorf("cuda: reduce: %w", err)
		}
	}
	return nil
}
