//go:build cgo && linux

package cuda

import (
	"os"
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
)

// TestSoftmaxSharedThroughDouble runs gputest's SoftmaxGrad kind (the
// tests Vulkan and WebGPU run) through the test double, and with
// SHADERFLOW_FAKE_CUDA_FULL=1 (cuda/fakeconf's EnvFull) its Softmax kind
// too, whose 16.8 million one-element rows take over a minute here. On a
// GPU, TestHardwareKernels runs both.
func TestSoftmaxSharedThroughDouble(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<22)
	if os.Getenv("SHADERFLOW_FAKE_CUDA_FULL") == "1" {
		gputest.RunKinds(t, d, "Softmax") // and SoftmaxGrad, which the prefix names too
		return
	}
	gputest.RunKinds(t, d, "SoftmaxGrad")
}
