//go:build !cgo

package vulkan

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

func init() { device.Register(Backend{}) }

// Backend is the Vulkan backend as registered with package device. This
// build has no cgo, so it has no adapters.
type Backend struct{}

// errNoCgo explains why this build cannot use Vulkan.
var errNoCgo = fmt.Errorf("vulkan: built without cgo (CGO_ENABLED=0); rebuild with cgo and a C compiler to use Vulkan: %w", device.ErrUnavailable)

// Name returns "vulkan".
func (Backend) Name() string { return "vulkan" }

// Adapters returns an error wrapping device.ErrUnavailable.
func (Backend) Adapters() ([]device.Info, error) { return nil, errNoCgo }

// Open returns an error wrapping device.ErrUnavailable.
func (Backend) Open(int) (device.Device, error) { return nil, errNoCgo }
