package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// blasCase is a product over batch of views with the given strides (batch
// strides then the last two) and offsets.
func blasCase(batch []int, m, n, k int, aStrides, bStrides []int) *device.MatMulKernel {
	buf := fakeBuf(1 << 30)
	shape := func(r, c int) []int { return append(append([]int{}, batch...), r, c) }
	kk := &device.MatMulKernel{Batch: batch, M: m, N: n, K: k,
		A:        device.View{Buf: buf, DType: device.Float32, Shape: shape(m, k), Strides: aStrides, Offset: 3},
		B:        device.View{Buf: buf, DType: device.Float32, Shape: shape(k, n), Strides: bStrides, Offset: 7},
		Epilogue: device.Identity(device.Float32),
		Outputs:  []device.View{device.Contiguous(buf, device.Float32, 0, shape(m, n))}}
	return kk
}

func TestPlanBLAS(t *testing.T) {
	const m, n, k = 5, 6, 7
	for _, c := range []struct {
		what   string
		kern   *device.MatMulKernel
		ok     bool
		want   blasGemm
		direct bool
	}{
		{"row-major, batch 3", blasCase([]int{3}, m, n, k, []int{m * k, k, 1}, []int{k * n, n, 1}), true,
			blasGemm{m: n, n: m, k: k, lda: n, ldb: k, ldc: n, offA: 7, offB: 3, strideA: k * n, strideB: m * k, strideC: m * n, batch: 3}, true},
		{"A transposed, B transposed", blasCase(nil, m, n, k, []int{1, m}, []int{1, k}), true,
			blasGemm{transA: true, transB: true, m: n, n: m, k: k, lda: k, ldb: m, ldc: n, offA: 7, offB: 3, strideC: m * n, batch: 1}, true},
		{"A broadcast over a batch of 2x3 that merges", blasCase([]int{2, 3}, m, n, k, []int{0, 0, k, 1}, []int{3 * k * n, k * n, n, 1}), true,
			blasGemm{m: n, n: m, k: k, lda: n, ldb: k, ldc: n, offA: 7, offB: 3, strideA: k * n, strideB: 0, strideC: m * n, batch: 6}, true},
		{"padded rows (leading dimensions above the minimum)", blasCase(nil, m, n, k, []int{k + 3, 1}, []int{n + 1, 1}), true,
			blasGemm{m: n, n: m, k: k, lda: n + 1, ldb: k + 3, ldc: n, offA: 7, offB: 3, strideC: m * n, batch: 1}, true},
		{"M=1 and N=1 with unused strides", blasCase(nil, 1, 1, k, []int{99, 1}, []int{1, 42}), true,
			blasGemm{m: 1, n: 1, k: k, lda: 1, ldb: k, ldc: 1, offA: 7, offB: 3, strideC: 1, batch: 1}, true},
		{"A broadcast along one batch dimension only", blasCase([]int{2, 3}, m, n, k, []int{m * k, 0, k, 1}, []int{3 * k * n, k * n, n, 1}), false, blasGemm{}, false},
		{"a negative stride", blasCase(nil, m, n, k, []int{k, 1}, []int{-n, 1}), false, blasGemm{}, false},
		{"no unit stride", blasCase(nil, m, n, k, []int{2 * k, 2}, []int{n, 1}), false, blasGemm{}, false},
		{"overlapping rows", blasCase(nil, m, n, k, []int{k, 1}, []int{n - 1, 1}), false, blasGemm{}, false},
		{"K=0", blasCase(nil, m, n, 0, []int{0, 1}, []int{n, 1}), false, blasGemm{}, false},
		{"an empty batch", blasCase([]int{0}, m, n, k, []int{m * k, k, 1}, []int{k * n, n, 1}), false, blasGemm{}, false},
	} {
		g, ok := planBLAS(c.kern)
		assert.Equal(t, c.ok, ok, c.what)
		assert.Equal(t, c.want, g, c.what)
		if ok {
			assert.Equal(t, c.direct, isIdentityEpilogue(c.kern), c.what)
		}
	}
}

func TestIsIdentityEpilogue(t *testing.T) {
	k := blasCase(nil, 2, 2, 2, []int{2, 1}, []int{2, 1})
	assert.True(t, isIdentityEpilogue(k))
	k.Outputs[0].DType = device.Float16
	assert.False(t, isIdentityEpilogue(k), "a float16 output needs the conversion")
	k.Outputs[0].DType = device.Float32
	var e device.Builder
	e.Output(e.Unary(device.OpRelu, e.Input(0, device.Float32)))
	k.Epilogue = e.P
	assert.False(t, isIdentityEpilogue(k), "relu")
	k.Epilogue = device.Identity(device.Float32)
	k.Outputs = append(k.Outputs, k.Outputs[0])
	assert.False(t, isIdentityEpilogue(k), "two outputs")
}

// TestPreferGenerated checks which products stay on the generated kernel,
// on the shapes of docs/cuda.md's crossover table (TestHardwareMatMulCrossover
// on an H100): the faster path there but for two, 128 batches of
// 128x32x128 stored directly, and the MLP's first layer with its bias and
// ReLU, which alone was faster through cuBLAS while the MLP's training
// epoch was faster with it generated.
func TestPreferGenerated(t *testing.T) {
	bias := func() device.Program {
		var e device.Builder
		e.Output(e.Unary(device.OpRelu, e.Binary(device.OpAdd, e.Input(0, device.Float32), e.Input(1, device.Float32))))
		return e.P
	}()
	for _, c := range []struct {
		batch, m, n, k int
		epilogue       bool
		want           bool
	}{
		{1, 64, 128, 784, false, false},
		{1, 64, 128, 784, true, true},
		{1, 784, 128, 64, false, true},
		{1, 64, 784, 128, false, true},
		{1, 64, 10, 128, true, true},
		{1, 256, 256, 256, false, false},
		{1, 256, 256, 256, true, true},
		{1, 512, 512, 512, true, false},
		{1, 4096, 384, 128, false, false},
		{1, 512, 128, 4096, false, false},
		{128, 128, 128, 32, false, true},
		{128, 128, 32, 128, true, true},
	} {
		k := &device.MatMulKernel{M: c.m, N: c.n, K: c.k, Epilogue: device.Identity(device.Float32),
			Outputs: []device.View{{DType: device.Float32}}}
		if c.batch > 1 {
			k.Batch = []int{c.batch}
		}
		if c.epilogue {
			k.Epilogue = bias
		}
		assert.Equal(t, c.want, preferGenerated(k), "%dx%dx%dx%d epilogue %v", c.batch, c.m, c.n, c.k, c.epilogue)
		assert.Equal(t, !c.want, blasBySize.useBLAS(k))
		assert.True(t, blasAlways.useBLAS(k))
		assert.False(t, blasNever.useBLAS(k))
	}
}
