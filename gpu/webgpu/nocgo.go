//go:build !cgo

package webgpu

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

func init() { device.Register(nocgo{}) }

// nocgo is the backend registered when the package is built without cgo:
// it lists no adapters and says why.
type nocgo struct{}

// Name returns "webgpu".
func (nocgo) Name() string { return Name }

// Adapters says that the package was built without cgo.
func (nocgo) Adapters() ([]device.Info, error) {
	return nil, fmt.Errorf("webgpu: built without cgo (rebuild with CGO_ENABLED=1 and a C compiler): %w", device.ErrUnavailable)
}

// Open fails like Adapters.
func (b nocgo) Open(int) (device.Device, error) {
	_, err := b.Adapters()
	return nil, err
}
