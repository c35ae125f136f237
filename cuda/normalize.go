//go:build cgo && linux

package cuda

import (
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Normalize runs k with kernels/normalize.cu's row kernel, after validating
// the kernel and checking that both buffers are live buffers of this
// device: each row is read from global memory once (four times, once a
// pass, for rows longer than 16384 elements) and written once.
func (d *Device) Normalize(k *device.NormalizeKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	return d.runRows("normalize", nmEntry, normalizeModule, []device.View{k.In}, []string{"In"}, k.Out, int64(math.Float64bits(k.Eps)))
}

// NormalizeBackward runs k with kernels/normalize.cu's gradient row kernel,
// after validating the kernel and checking that every buffer is a live
// buffer of this device: each row of X and G is read once (X five times
// and G twice for rows longer than 16384 elements) and Out written once.
func (d *Device) NormalizeBackward(k *device.NormalizeBackwardKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	return d.runRows("normalize backward", nmBackwardEntry, normalizeBackwardModule, []device.View{k.X, k.G}, []string{"X", "G"}, k.Out, int64(math.Float64bits(k.Eps)))
}
