//go:build cgo

package vulkan

import (
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
)

// TestKernels runs the shared kernel tests of every kind (package gputest:
// random inputs against float64 references built from package device's
// scalar definitions) on the Vulkan device.
func TestKernels(t *testing.T) {
	gputest.RunKernels(t, openDevice(t))
}
