//go:build cgo && linux

package cuda

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestHardwareMatMulCrossover logs, on CUDA device 0 of the machine's real
// driver, the time a product takes through cuBLAS and through the
// generated kernel, for the shapes of the demo's models (the MLP's, the
// GPT's projections and attention) and square ones, with the epilogue
// storing the product alone and with a bias and ReLU (which cuBLAS runs as
// a second pass): the measurements behind preferGenerated. Each time
// is the median of five batches of back-to-back launches (the launches of
// a batch pipelined, as in a training step) ended by a Sync. It fails only
// when a product fails; it skips as TestHardwareKernels does.
func TestHardwareMatMulCrossover(t *testing.T) {
	d := gputest.Open(t, "cuda").(*Device)
	if d.blas() == nil {
		t.Skipf("cuBLAS did not load: %v", d.blasState())
	}
	logCrossover(t, d, []crossoverShape{
		{1, 64, 128, 784}, {1, 784, 128, 64}, {1, 64, 784, 128}, {1, 64, 10, 128}, {1, 128, 10, 64},
		{1, 256, 256, 256}, {1, 512, 512, 512}, {1, 1024, 1024, 1024}, {1, 2048, 2048, 2048},
		{1, 4096, 384, 128}, {1, 4096, 128, 512}, {1, 512, 128, 4096}, {1, 4096, 512, 128},
		{128, 128, 128, 32}, {128, 128, 32, 128},
	})
}

// crossoverShape is a product's batch and sizes.
type crossoverShape struct{ batch, m, n, k int }

// logCrossover logs TestHardwareMatMulCrossover's table for shapes on d.
func logCrossover(t *testing.T, d *Device, shapes []crossoverShape) {
	defer func(p blasPolicy) { d.blasUse = p }(d.blasUse)
	f32 := device.Float32
	t.Logf("%-22s %14s %12s %12s %12s %12s", "batch x M x N x K", "flops", "blas", "kernel", "blas+bias", "kernel+bias")
	for _, s := range shapes {
		a := gputest.Alloc(t, d, int64(4*s.batch*s.m*s.k))
		b := gputest.Alloc(t, d, int64(4*s.batch*s.k*s.n))
		c := gputest.Alloc(t, d, int64(4*s.batch*s.m*s.n))
		bias := gputest.Alloc(t, d, int64(4*s.n))
		var batch []int
		if s.batch > 1 {
			batch = []int{s.batch}
		}
		res := slices.Concat(batch, []int{s.m, s.n})
		biasView := device.View{Buf: bias, DType: f32, Shape: res, Strides: make([]int, len(res))}
		biasView.Strides[len(res)-1] = 1
		var e device.Builder
		e.Output(e.Unary(device.OpRelu, e.Binary(device.OpAdd, e.Input(0, f32), e.Input(1, f32))))
		kernel := func(withBias bool) *device.MatMulKernel {
			k := &device.MatMulKernel{Batch: batch, M: s.m, N: s.n, K: s.k,
				A:        device.Contiguous(a, f32, 0, slices.Concat(batch, []int{s.m, s.k})),
				B:        device.Contiguous(b, f32, 0, slices.Concat(batch, []int{s.k, s.n})),
				Epilogue: device.Identity(f32), Outputs: []device.View{device.Contiguous(c, f32, 0, res)}}
			if withBias {
				k.Epilogue, k.EpilogueInputs = e.P, []device.View{biasView}
			}
			return k
		}
		row := fmt.Sprintf("%-22s %14.3g", fmt.Sprintf("%dx%dx%dx%d", s.batch, s.m, s.n, s.k), 2*float64(s.batch*s.m*s.n*s.k))
		for _, withBias := range []bool{false, true} {
			for _, p := range []blasPolicy{blasAlways, blasNever} {
				d.blasUse = p
				row += fmt.Sprintf(" %9.1f us", timeProduct(t, d, kernel(withBias)).Seconds()*1e6)
			}
		}
		t.Log(row)
		for _, buf := range []device.Buffer{a, b, c, bias} {
			d.Free(buf)
		}
	}
}

// timeProduct returns the median over five batches of the time a launch
// of k takes when launches run back to back, after a warm-up batch that
// compiles the kernel.
func timeProduct(t *testing.T, d *Device, k *device.MatMulKernel) time.Duration {
	const perBatch = 20
	times := make([]time.Duration, 0, 5)
	for i := range 6 {
		require.NoError(t, d.Sync())
		start := time.Now()
		for range perBatch {
			require.NoError(t, d.MatMul(k))
		}
		require.NoError(t, d.Sync())
		if i > 0 {
			times = append(times, time.Since(start)/perBatch)
		}
	}
	slices.Sort(times)
	return times[len(times)/2]
}
