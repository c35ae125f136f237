package webgpu

import (
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
)

func TestKernels(t *testing.T) {
	gputest.RunKernels(t, gputest.Open(t, Name))
}
