//go:build cgo && linux

package cuda

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Gather runs torch.gather with kernels/index.cu's sf_gather (every dtype,
// copied as raw bits), after validating the kernel. An index outside
// [0, Src.Shape[Axis]) writes nothing and is reported by the next Sync or
// Read as an error saying "out of range" with the index.
func (d *Device) Gather(k *device.GatherKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	if err := checkDTypes(k); err != nil {
		return err
	}
	c := indexCall{kernel: "gather", data: "Src", axis: k.Axis, dataShape: k.Src.Shape, shape: k.Index.Shape}
	return d.runIndexed(gatherEntry, c, [3]device.View{k.Src, k.Index, k.Out})
}
