//go:build cgo && linux

package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
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

// TestConvFallsBackWithoutScratch checks that a convolution whose patch
// matrix cannot be allocated runs on the direct kernel instead of failing:
// the same result, bit for bit, as a run forced onto that kernel.
func TestConvFallsBackWithoutScratch(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	f32 := device.Float32
	g := device.ConvGeometry{N: 2, C: 3, O: 4, Groups: 1, In: []int{5, 6}, Kernel: []int{3, 3}, Out: []int{5, 6},
		Stride: []int{1, 1}, Padding: []int{1, 1}, Dilation: []int{1, 1}}
	xs, ws := make([]float64, 2*3*5*6), make([]float64, 4*3*3*3)
	for i := range xs {
		xs[i] = float64(i%7) - 3
	}
	for i := range ws {
		ws[i] = float64(i%5) * 0.5
	}
	x, w := gputest.Upload(t, d, f32, xs), gputest.Upload(t, d, f32, ws)
	y := []int{2, 4, 5, 6}
	run := func() []float64 {
		out := gputest.Alloc(t, d, 4*2*4*5*6)
		require.NoError(t, d.Conv(&device.ConvKernel{Mode: device.ConvForward, Geom: g,
			A: device.Contiguous(x, f32, 0, []int{2, 3, 5, 6}), B: device.Contiguous(w, f32, 0, []int{4, 3, 3, 3}),
			Epilogue: device.Identity(f32), Outputs: []device.View{device.Contiguous(out, f32, 0, y)}}))
		return gputest.Download(t, d, out, f32, 0, 2*4*5*6)
	}
	d.direct = true
	want := run()
	d.direct = false
	out := gputest.Alloc(t, d, 4*2*4*5*6)
	t.Setenv("SF_FAKE_CUDA_FAIL", "cuMemAllocAsync=2*2") // the scratch's allocation and its retry fail
	require.NoError(t, d.Conv(&device.ConvKernel{Mode: device.ConvForward, Geom: g,
		A: device.Contiguous(x, f32, 0, []int{2, 3, 5, 6}), B: device.Contiguous(w, f32, 0, []int{4, 3, 3, 3}),
		Epilogue: device.Identity(f32), Outputs: []device.View{device.Contiguous(out, f32, 0, y)}}))
	t.Setenv("SF_FAKE_CUDA_FAIL", "")
	assert.Equal(t, want, gputest.Download(t, d, out, f32, 0, 2*4*5*6))
	assert.Zero(t, f.count(t, "cuLaunchKernel sf_im2col"), "the direct kernel both times")
}
