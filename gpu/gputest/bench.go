package gputest

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// label logs what the numbers were measured on: a software adapter's
// numbers are CPU numbers, never GPU ones.
func label(b *testing.B, d device.Device) {
	info := d.Info()
	what := "GPU"
	if !info.Kind.IsHardwareGPU() {
		what = "NOT a GPU: a software adapter emulated on the CPU"
	}
	b.Logf("device %s: %s", info, what)
}

// addKernel returns out = x + y over n float32 elements of the buffers.
func addKernel(x, y, out device.Buffer, n int) *device.ElementwiseKernel {
	var p device.Builder
	p.Output(p.Binary(device.OpAdd, p.Input(0, device.Float32), p.Input(1, device.Float32)))
	sh := []int{n}
	return &device.ElementwiseKernel{Shape: sh, Program: p.P,
		Inputs:  []device.View{device.Contiguous(x, device.Float32, 0, sh), device.Contiguous(y, device.Float32, 0, sh)},
		Outputs: []device.View{device.Contiguous(out, device.Float32, 0, sh)}}
}

func allocN(b *testing.B, d device.Device, bytes int64, n int) []device.Buffer {
	bufs := make([]device.Buffer, n)
	for i := range bufs {
		buf, err := d.Alloc(bytes)
		if err != nil {
			b.Fatal(err)
		}
		bufs[i] = buf
		b.Cleanup(func() { d.Free(buf) })
	}
	return bufs
}

func run(b *testing.B, err error) {
	if err != nil {
		b.Fatal(err)
	}
}

// BenchKernelOverhead measures one small elementwise kernel (256
// elements) recorded into batched submissions. With sync set the device is
// synchronized before the clock stops (host overhead plus the device's own
// per-dispatch cost); without, the clock covers only the host's calls (the
// recording, and the submissions of full batches).
func BenchKernelOverhead(b *testing.B, d device.Device, sync bool) {
	label(b, d)
	bufs := allocN(b, d, 1024, 3)
	k := addKernel(bufs[0], bufs[1], bufs[2], 256)
	run(b, d.Elementwise(k)) // warm-up: pipeline and bind group
	run(b, d.Sync())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, d.Elementwise(k))
	}
	if !sync {
		b.StopTimer()
	}
	run(b, d.Sync())
}

// BenchAdd measures out = x + y over n float32 elements: 12n bytes move per
// kernel.
func BenchAdd(b *testing.B, d device.Device, n int) {
	label(b, d)
	bufs := allocN(b, d, int64(4*n), 3)
	k := addKernel(bufs[0], bufs[1], bufs[2], n)
	run(b, d.Elementwise(k))
	run(b, d.Sync())
	b.SetBytes(int64(12 * n))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, d.Elementwise(k))
	}
	run(b, d.Sync())
}

// BenchMatMul measures an n×n×n float32 matrix product and reports
// GFLOP/s (2n³ flops per product).
func BenchMatMul(b *testing.B, d device.Device, n int) {
	label(b, d)
	bufs := allocN(b, d, int64(4*n*n), 3)
	sh := []int{n, n}
	k := &device.MatMulKernel{M: n, N: n, K: n, Epilogue: device.Identity(device.Float32),
		A:       device.Contiguous(bufs[0], device.Float32, 0, sh),
		B:       device.Contiguous(bufs[1], device.Float32, 0, sh),
		Outputs: []device.View{device.Contiguous(bufs[2], device.Float32, 0, sh)}}
	run(b, d.MatMul(k))
	run(b, d.Sync())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, d.MatMul(k))
	}
	run(b, d.Sync())
	b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchReduceSum measures the sum of n float32 elements into one value:
// the case a workgroup-per-output reduction handles worst.
func BenchReduceSum(b *testing.B, d device.Device, n int) {
	label(b, d)
	bufs := allocN(b, d, int64(4*n), 2)
	k := &device.ReduceKernel{Op: device.ReduceSum, OutShape: []int{}, RedShape: []int{n},
		Inputs:   []device.View{device.Contiguous(bufs[0], device.Float32, 0, []int{n})},
		Prologue: device.Identity(device.Float32), Epilogue: device.Identity(device.Float32),
		Outputs: []device.View{device.Contiguous(bufs[1], device.Float32, 0, []int{})}}
	run(b, d.Reduce(k))
	run(b, d.Sync())
	b.SetBytes(int64(4 * n))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, d.Reduce(k))
	}
	run(b, d.Sync())
}
