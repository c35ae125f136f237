//go:build cgo

package vulkan

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

func init() { device.Register(Backend{}) }

// Backend is the Vulkan backend as registered with package device.
type Backend struct{}

// Name returns "vulkan".
func (Backend) Name() string { return "vulkan" }

// Adapters lists the Vulkan devices that have a compute queue, discrete GPUs
// first, then integrated, virtual, other and CPU (software) devices. It
// returns an error wrapping device.ErrUnavailable that says what to install
// when there is no loader, driver or device.
func (Backend) Adapters() ([]device.Info, error) {
	in, err := getInstance()
	if err != nil {
		return nil, err
	}
	infos := make([]device.Info, len(in.adapters))
	for i, a := range in.adapters {
		infos[i] = a.info
	}
	return infos, nil
}

// Open opens adapter index of Adapters.
func (Backend) Open(index int) (device.Device, error) {
	in, err := getInstance()
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(in.adapters) {
		return nil, fmt.Errorf("vulkan: no adapter %d (there are %d): %w", index, len(in.adapters), device.ErrUnavailable)
	}
	return open(in, in.adapters[index])
}
