//go:build cgo && linux

package cuda

import (
	"os"
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
)

// TestSoftmaxSharedThroughDouble runs gputest's Softmax and SoftmaxGrad
// kinds (the tests Vulkan and WebGPU run) through the test double. Their
// 16.8 million one-element rows take minutes here, so it runs only with
// SHADERFLOW_FAKE_CUDA_FULL=1 (cuda/fakeconf's EnvFull); on a GPU,
// TestHardwareKernels runs them.
func TestSoftmaxSharedThroughDouble(t *testing.T) {
	if os.Getenv("SHADERFLOW_FAKE_CUDA_FULL") != "1" {
		t.Skip("SHADERFLOW_FAKE_CUDA_FULL=1 runs gputest's softmax kinds through the double (minutes)")
	}
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<22)
	gputest.RunKinds(t, d, "Softmax", "SoftmaxGrad")
}
