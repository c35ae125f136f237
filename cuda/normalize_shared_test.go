//go:build cgo && linux

package cuda

import (
	"os"
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
)

// TestNormalizeSharedThroughDouble runs gputest's normalization special
// rows (the tests Vulkan and WebGPU run: NaN, ±Inf, constant, zero, large
// mean, values near float32's range and of 1e-30, eps 1e-5 and 0) through
// the test double, and with SHADERFLOW_FAKE_CUDA_FULL=1 (cuda/fakeconf's
// EnvFull) gputest's whole Normalize kind, whose 16.8 million one-element
// rows are slow through the double. On a GPU, TestHardwareKernels runs the
// kind.
func TestNormalizeSharedThroughDouble(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<22)
	if os.Getenv("SHADERFLOW_FAKE_CUDA_FULL") == "1" {
		gputest.RunKinds(t, d, "Normalize")
		return
	}
	gputest.RunNormalizeSpecials(t, d)
}
