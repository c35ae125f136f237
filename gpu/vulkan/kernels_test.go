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

// TestLimits runs the shared size-limit tests (package gputest): every
// kind just below and above the loop budget the planners split at, with
// the device's loop limit lowered, and the reported real-size cases.
func TestLimits(t *testing.T) {
	d := openDevice(t)
	own := d.loopLimit
	gputest.RunLimits(t, d, func(n int) {
		if n < 0 {
			n = own
		}
		d.loopLimit = n
	}, true)
}

// TestBindingLimits runs the shared binding-size tests (package gputest):
// kernels whose views span just below and above a lowered binding size
// (also with the loop limit lowered, for products split over both batch
// and depth), and a 2^26-element float32 add at lavapipe's own 128 MiB.
func TestBindingLimits(t *testing.T) {
	d := openDevice(t)
	own, ownLoops := d.bindingLimit, d.loopLimit
	gputest.RunBindingLimits(t, d, func(n int64) {
		if n < 0 {
			n = own
		}
		d.bindingLimit = n
	}, func(n int) {
		if n < 0 {
			n = ownLoops
		}
		d.loopLimit = n
	}, true)
}
