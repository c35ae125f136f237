//go:build cgo && linux

package cuda

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// The row kernels' interfaces (normalize.go implements RowNormalizer).
var (
	_ device.RowSoftmaxer     = (*Device)(nil)
	_ device.RowSoftmaxGrader = (*Device)(nil)
	_ device.RowNormalizer    = (*Device)(nil)
)

// Softmax runs k with kernels/softmax.cu's one-pass row kernel, after
// validating the kernel and checking that both buffers are live buffers of
// this device: each row is read from global memory once (twice for rows
// longer than 16384 elements) and written once.
func (d *Device) Softmax(k *device.SoftmaxKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	return d.runRows("softmax", smEntry, softmaxModule, []device.View{k.In}, []string{"In"}, k.Out, smLogArg(k.Log))
}

// SoftmaxBackward runs k with kernels/softmax.cu's one-pass gradient row
// kernel, after validating the kernel and checking that every buffer is a
// live buffer of this device: each row of Y and G is read once (twice for
// rows longer than 16384 elements) and Out written once.
func (d *Device) SoftmaxBackward(k *device.SoftmaxBackwardKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	return d.runRows("softmax backward", smBackwardEntry, softmaxBackwardModule, []device.View{k.Y, k.G}, []string{"Y", "G"}, k.Out, smLogArg(k.Log))
}

// smLogArg is the softmax kernels' argument word: 1 for a log-softmax.
func smLogArg(log bool) int64 {
	if log {
		return 1
	}
	return 0
}
