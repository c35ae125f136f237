//go:build !cgo || !linux

package cuda

import (
	"fmt"
	"runtime"

	"github.com/shaderflow/shaderflow/tensor/device"
)

func init() { device.Register(Backend{}) }

// Backend is the CUDA backend as registered with package device. This build
// cannot reach the driver, so it has no adapters.
type Backend struct{}

// errNoCgo explains why this build cannot use CUDA.
var errNoCgo = unavailableReason(runtime.GOOS)

// unavailableReason says why a build for goos has no CUDA.
func unavailableReason(goos string) error {
	if goos != "linux" {
		return fmt.Errorf("cuda: the CUDA backend supports only Linux so far (this is %s): %w", goos, device.ErrUnavailable)
	}
	return fmt.Errorf("cuda: built without cgo (CGO_ENABLED=0); rebuild with cgo and a C compiler (gcc), then install the NVIDIA driver and NVRTC, to use CUDA: %w", device.ErrUnavailable)
}

// Name returns "cuda".
func (Backend) Name() string { return "cuda" }

// Adapters returns an error wrapping device.ErrUnavailable.
func (Backend) Adapters() ([]device.Info, error) { return nil, errNoCgo }

// Open returns an error wrapping device.ErrUnavailable.
func (Backend) Open(int) (device.Device, error) { return nil, errNoCgo }
