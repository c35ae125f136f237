//go:build cgo

package webgpu

import (
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
)

func TestKernels(t *testing.T) {
	gputest.RunKernels(t, gputest.Open(t, Name))
}

// TestLimits runs the shared size-limit tests (package gputest) with the
// device's loop limit lowered; the real-size cases run on Vulkan only (the
// plans are shared, and they take a minute on lavapipe).
func TestLimits(t *testing.T) {
	d := gputest.Open(t, Name).(*Device)
	own := d.target.MaxLoopIterations
	gputest.RunLimits(t, d, func(n int) {
		if n < 0 {
			n = own
		}
		d.target.MaxLoopIterations = n
	}, false)
}

// TestBindingLimits runs the shared binding-size tests (package gputest)
// with the device's binding size (and then its loop limit) lowered; the
// real-size case runs on Vulkan only (the plans are shared).
func TestBindingLimits(t *testing.T) {
	d := gputest.Open(t, Name).(*Device)
	own, ownLoops := d.target.MaxBindingBytes, d.target.MaxLoopIterations
	gputest.RunBindingLimits(t, d, func(n int64) {
		if n < 0 {
			n = own
		}
		d.target.MaxBindingBytes = n
	}, func(n int) {
		if n < 0 {
			n = ownLoops
		}
		d.target.MaxLoopIterations = n
	}, false)
}
