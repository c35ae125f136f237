//go:build cgo && linux

package cuda

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Scatter runs torch.scatter_add_ with kernels/index.cu's sf_scatter (a
// float atomicAdd per element of Index, so the order of colliding additions
// is unspecified), after validating the kernel. An index outside
// [0, Dst.Shape[Axis]) adds nothing and is reported by the next Sync or
// Read as an error saying "out of range" with the index.
func (d *Device) Scatter(k *device.ScatterKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	c := indexCall{kernel: "scatter", data: "Dst", axis: k.Axis, dataShape: k.Dst.Shape, shape: k.Index.Shape}
	return d.runIndexed(scatterEntry, c, [3]device.View{k.Dst, k.Index, k.Src})
}
