//go:build cgo && linux

package cuda

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestCuBLASThroughDouble runs the cuBLAS path through the double's fake
// cuBLAS (the driver built with the soname cuBLAS would load): a product
// stored directly and one with an epilogue, right against the float64
// reference; each SGEMM counted as one kernel call and timed as
// blasKernelName by the profiler like the backend's own kernels; and,
// with graphs on, a launch queued before the SGEMM submitted first (the
// product reads what the queued copy wrote); then SetTF32 (testTF32).
func TestCuBLASThroughDouble(t *testing.T) {
	f := buildFake(t, []string{"-Wl,-soname,libcuda.so.1"}, nil)
	d := f.open(t, 1<<20)
	require.NoError(t, d.useBLAS([]string{f.dir + "/libcublas.so.13"}))
	f32 := device.Float32
	const m, n, k = 5, 3, 7
	t.Run("Policy", func(t *testing.T) { testBLASPolicy(t, f, d, 4, 6, 5) })
	d.blasUse = blasAlways // every product below goes to cuBLAS
	launches := f.count(t, "cuLaunchKernel sf_matmul")
	av, bv := make([]float64, m*k), make([]float64, k*n)
	for i := range av {
		av[i] = float64(i%5) - 1.5
	}
	for i := range bv {
		bv[i] = float64(i%4) * 0.25
	}
	want := make([]float64, m*n)
	for i := range m {
		for j := range n {
			for p := range k {
				want[i*n+j] += av[i*k+p] * bv[p*n+j]
			}
		}
	}
	a := gputest.Upload(t, d, f32, av)
	b := gputest.Upload(t, d, f32, bv)
	out := gputest.Alloc(t, d, 4*m*n)
	product := func(a device.Buffer, ep device.Program) *device.MatMulKernel {
		return &device.MatMulKernel{M: m, N: n, K: k, A: device.Contiguous(a, f32, 0, []int{m, k}),
			B: device.Contiguous(b, f32, 0, []int{k, n}), Epilogue: ep,
			Outputs: []device.View{device.Contiguous(out, f32, 0, []int{m, n})}}
	}

	d.SetProfiling(true)
	calls := d.KernelCalls()
	require.NoError(t, d.MatMul(product(a, device.Identity(f32))))
	require.NoError(t, d.Sync())
	assert.Equal(t, want, gputest.Download(t, d, out, f32, 0, m*n))
	times := d.KernelTimes()
	require.Len(t, times, 1)
	assert.Equal(t, blasKernelName, times[0].Name)
	assert.Equal(t, calls+1, times[0].Call)
	assert.Positive(t, times[0].Duration)
	assert.Equal(t, 1, f.count(t, "cublasSgemmStridedBatched m=3 n=5 k=7 batch=1"), "row-major C = A·B as column-major Cᵀ = Bᵀ·Aᵀ")

	var ep device.Builder
	ep.Output(ep.Binary(device.OpMul, ep.Input(0, f32), ep.Const(2, f32)))
	require.NoError(t, d.MatMul(product(a, ep.P)))
	require.NoError(t, d.Sync())
	doubled := make([]float64, len(want))
	for i, v := range want {
		doubled[i] = 2 * v
	}
	assert.Equal(t, doubled, gputest.Download(t, d, out, f32, 0, m*n))
	names := []string{}
	for _, kt := range d.KernelTimes() {
		names = append(names, kt.Name)
	}
	assert.Equal(t, []string{blasKernelName, "elementwise"}, names, "the epilogue after cuBLAS")
	assert.Equal(t, launches, f.count(t, "cuLaunchKernel sf_matmul"), "no generated product")
	d.SetProfiling(false)

	require.NoError(t, d.SetGraphs(true))
	a2 := gputest.Alloc(t, d, 4*m*k)
	require.NoError(t, d.Copy(&device.CopyKernel{Dst: device.Contiguous(a2, f32, 0, []int{m * k}), Src: device.Contiguous(a, f32, 0, []int{m * k})}))
	require.NoError(t, d.MatMul(product(a2, device.Identity(f32))))
	assert.Equal(t, want, gputest.Download(t, d, out, f32, 0, m*n))
	require.NoError(t, d.SetGraphs(false))
	t.Run("TF32", func(t *testing.T) { testTF32(t, f, d) })
}

// testBLASPolicy checks, through the fake cuBLAS, which products go to
// cuBLAS by default: an m x n x k product with K of at most 128 runs on the
// generated kernel, the same with K = 257 through cuBLAS, and blasNever
// keeps it on the generated kernel.
func testBLASPolicy(t *testing.T, f *fake, d *Device, m, n, k int) {
	f32 := device.Float32
	product := func(k int) {
		a, b, out := gputest.Alloc(t, d, int64(4*m*k)), gputest.Alloc(t, d, int64(4*k*n)), gputest.Alloc(t, d, int64(4*m*n))
		require.NoError(t, d.MatMul(&device.MatMulKernel{M: m, N: n, K: k, A: device.Contiguous(a, f32, 0, []int{m, k}),
			B: device.Contiguous(b, f32, 0, []int{k, n}), Epilogue: device.Identity(f32),
			Outputs: []device.View{device.Contiguous(out, f32, 0, []int{m, n})}}))
		require.NoError(t, d.Sync())
	}
	sgemm := func(k int) string { return fmt.Sprintf("cublasSgemmStridedBatched m=%d n=%d k=%d batch=1", n, m, k) }
	require.Equal(t, blasBySize, d.blasUse)
	product(k)
	assert.Zero(t, f.count(t, sgemm(k)), "a small product runs on the generated kernel")
	assert.Equal(t, 1, f.count(t, "cuLaunchKernel sf_matmul"))
	product(257)
	assert.Equal(t, 1, f.count(t, sgemm(257)), "a long reduction goes to cuBLAS")
	assert.Equal(t, 1, f.count(t, "cuLaunchKernel sf_matmul"))
	d.blasUse = blasNever
	product(257)
	assert.Equal(t, 1, f.count(t, sgemm(257)), "blasNever")
	assert.Equal(t, 2, f.count(t, "cuLaunchKernel sf_matmul"))
	d.blasUse = blasBySize
}

// testTF32 checks SetTF32 through the fake cuBLAS, which rounds the
// operands to TF32's 10-bit mantissa under CUBLAS_TF32_TENSOR_OP_MATH: a
// product of 1+2^-12 by itself is 1 with TF32 and 1+2^-11 (its float32
// rounding) without. TF32 is turned on for the existing handle, then the
// handle is made again with it on (the mode applied at creation), then
// turned off. (One fake driver with cuBLAS's soname per process: the
// checks share TestCuBLASThroughDouble's.)
func testTF32(t *testing.T, f *fake, d *Device) {
	f32 := device.Float32
	const m, n, k = 2, 2, 2
	x := 1 + math.Pow(2, -12)
	a := gputest.Upload(t, d, f32, []float64{x, 0, 0, x})
	b := gputest.Upload(t, d, f32, []float64{x, 0, 0, x})
	out := gputest.Alloc(t, d, 4*m*n)
	product := func() []float64 {
		require.NoError(t, d.MatMul(&device.MatMulKernel{M: m, N: n, K: k, A: device.Contiguous(a, f32, 0, []int{m, k}),
			B: device.Contiguous(b, f32, 0, []int{k, n}), Epilogue: device.Identity(f32),
			Outputs: []device.View{device.Contiguous(out, f32, 0, []int{m, n})}}))
		return gputest.Download(t, d, out, f32, 0, m*n)
	}
	exact := float64(float32(x * x))
	require.NotEqual(t, 1.0, exact)
	assert.Equal(t, []float64{exact, 0, 0, exact}, product(), "float32 operands by default")
	require.NoError(t, d.SetTF32(true))
	assert.Equal(t, 1, f.count(t, "cublasSetMathMode m=3"))
	assert.Equal(t, []float64{1, 0, 0, 1}, product(), "TF32 operands")
	require.NoError(t, d.closeBLAS())
	require.NoError(t, d.useBLAS([]string{f.dir + "/libcublas.so.13"}))
	assert.Equal(t, 2, f.count(t, "cublasSetMathMode m=3"), "a new handle is made with TF32 on")
	assert.Equal(t, []float64{1, 0, 0, 1}, product(), "TF32 operands")
	require.NoError(t, d.SetTF32(false))
	assert.Equal(t, []float64{exact, 0, 0, exact}, product(), "float32 operands again")
}
