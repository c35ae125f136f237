//go:build cgo && linux

package cuda

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

var _ device.RowSoftmaxer = (*Device)(nil)

// Softmax runs k with kernels/softmax.cu's one-pass row kernel, after
// validating the kernel and checking that both buffers are live buffers of
// this device: each row is read from global memory once (twice for rows
// longer than smThreads*smPer elements) and written once.
func (d *Device) Softmax(k *device.SoftmaxKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	in, err := d.own(k.In.Buf, "softmax: In")
	if err != nil {
		return err
	}
	out, err := d.own(k.Out.Buf, "softmax: Out")
	if err != nil {
		return err
	}
	launches := planSoftmax(k, uint64(in.ptr), uint64(out.ptr))
	if len(launches) == 0 {
		return nil
	}
	m, err := d.kernel(softmaxModuleSource(), "softmax.cu", smEntry)
	if err != nil {
		return err
	}
	for _, w := range launches {
		if err := d.launchBlocks(m, d.tileGrid(smGroups(w)), smThreads, w); err != nil {
			return fmt.Errorf("cuda: softmax: %w", err)
		}
	}
	return nil
}
