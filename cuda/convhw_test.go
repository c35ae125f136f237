//go:build cgo && linux

package cuda

import (
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
)

// TestHardwareConvPool runs the shared convolution and pooling tests and
// this package's edge cases (against the CPU backend) on CUDA device 0 of
// the machine's real driver, skipping as TestHardwareKernels does.
func TestHardwareConvPool(t *testing.T) {
	d := gputest.Open(t, "cuda")
	gputest.RunKinds(t, d, "Conv")
	gputest.RunKinds(t, d, "Pool")
	t.Run("ConvEdgeCases", func(t *testing.T) { convEdgeCases(hardwareTwins(t, d)) })
	t.Run("PoolEdgeCases", func(t *testing.T) { poolEdgeCases(hardwareTwins(t, d)) })
}
