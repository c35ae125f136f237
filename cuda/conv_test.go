//go:build cgo && linux

package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shaderflow/shaderflow/gpu/gputest"
)

// TestConvKernels runs the shared GPU convolution tests (1-, 2- and 3-D,
// groups, depthwise, strides, padding, dilation, every mode, transposed and
// offset views, a fused bias and ReLU) through the fake driver twice: on
// the generated direct kernel alone, then as products over patch matrices
// where convGEMM takes them (ungrouped convolutions); then compiles every
// generated direct source and the patch matrix kernels with clang-19 for
// sm_80 and sm_90.
func TestConvKernels(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	t.Run("Direct", func(t *testing.T) {
		d.direct = true
		defer func() { d.direct = false }()
		gputest.RunKinds(t, d, "Conv")
		assert.Equal(t, f.count(t, "nvrtcCreateProgram conv.cu"), len(d.programs), "one compilation per signature")
		assert.Zero(t, f.count(t, "cuLaunchKernel sf_im2col"))
	})
	t.Run("Products", func(t *testing.T) {
		gputest.RunKinds(t, d, "Conv")
		assert.Positive(t, f.count(t, "cuLaunchKernel sf_im2col"), "forward and weight gradient through the patch matrix")
		assert.Positive(t, f.count(t, "cuLaunchKernel sf_col2im"), "input gradient through the patch matrix")
		assert.Equal(t, 2, f.count(t, "nvrtcCreateProgram im2col.cu"), "one compilation per entry point")
	})
	t.Run("PTX", func(t *testing.T) {
		compileSourcesToPTX(t, generatedSources(t, f, cvEntry), cvEntry)
		compileSourcesToPTX(t, generatedSources(t, f, im2colEntry), im2colEntry)
		compileSourcesToPTX(t, generatedSources(t, f, col2imEntry), col2imEntry)
	})
}
