//go:build cgo && linux

package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shaderflow/shaderflow/gpu/gputest"
)

// TestConvKernels runs the shared GPU convolution tests (1-, 2- and 3-D,
// groups, depthwise, strides, padding, dilation, every mode, transposed and
// offset views, a fused bias and ReLU) on generated CUDA C through the fake
// driver, then compiles every generated source with clang-19 for sm_80 and
// sm_90.
func TestConvKernels(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	gputest.RunKinds(t, d, "Conv")
	assert.Equal(t, f.count(t, "nvrtcCreateProgram conv.cu"), len(d.programs), "one compilation per signature")
	t.Run("PTX", func(t *testing.T) { compileSourcesToPTX(t, generatedSources(t, f, cvEntry), cvEntry) })
}
