package gputest

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Label logs what the numbers were measured on: a software adapter's
// numbers are CPU numbers, never GPU ones.
func Label(b *testing.B, d device.Device) {
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
// elements) end to end: recorded into batched submissions, with the device
// synchronized before the clock stops, so the figure is host overhead plus
// the device's own per-dispatch cost. BenchRecordOverhead times the
// recording alone.
func BenchKernelOverhead(b *testing.B, d device.Device) {
	Label(b, d)
	bufs := allocN(b, d, 1024, 3)
	k := addKernel(bufs[0], bufs[1], bufs[2], 256)
	Time(b, d, 0, func() error { return d.Elementwise(k) })
}

// BenchAdd measures out = x + y over n float32 elements: 12n bytes move per
// kernel.
func BenchAdd(b *testing.B, d device.Device, n int) {
	Label(b, d)
	bufs := allocN(b, d, int64(4*n), 3)
	k := addKernel(bufs[0], bufs[1], bufs[2], n)
	Time(b, d, int64(12*n), func() error { return d.Elementwise(k) })
	ReportRate(b, float64(12*n), "GB/s")
}

// BenchMatMul measures an n×n×n float32 matrix product and reports
// GFLOP/s (2n³ flops per product).
func BenchMatMul(b *testing.B, d device.Device, n int) {
	Label(b, d)
	bufs := allocN(b, d, int64(4*n*n), 3)
	sh := []int{n, n}
	k := &device.MatMulKernel{M: n, N: n, K: n, Epilogue: device.Identity(device.Float32),
		A:       device.Contiguous(bufs[0], device.Float32, 0, sh),
		B:       device.Contiguous(bufs[1], device.Float32, 0, sh),
		Outputs: []device.View{device.Contiguous(bufs[2], device.Float32, 0, sh)}}
	Time(b, d, 0, func() error { return d.MatMul(k) })
	ReportRate(b, 2*float64(n)*float64(n)*float64(n), "GFLOP/s")
}

// BenchReduceSum measures the sum of n float32 elements into one value:
// the case a workgroup-per-output reduction handles worst.
func BenchReduceSum(b *testing.B, d device.Device, n int) {
	Label(b, d)
	bufs := allocN(b, d, int64(4*n), 2)
	k := &device.ReduceKernel{Op: device.ReduceSum, OutShape: []int{}, RedShape: []int{n},
		Inputs:   []device.View{device.Contiguous(bufs[0], device.Float32, 0, []int{n})},
		Prologue: device.Identity(device.Float32), Epilogue: device.Identity(device.Float32),
		Outputs: []device.View{device.Contiguous(bufs[1], device.Float32, 0, []int{})}}
	Time(b, d, int64(4*n), func() error { return d.Reduce(k) })
}

// Time measures launch, a function that records one kernel: it runs it once
// and synchronizes (pipeline creation and first dispatch are not timed),
// then times b.N launches with the device synchronized before the clock
// stops. bytes, when positive, is the traffic of one launch (b.SetBytes).
func Time(b *testing.B, d device.Device, bytes int64, launch func() error) {
	run(b, launch())
	run(b, d.Sync())
	if bytes > 0 {
		b.SetBytes(bytes)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, launch())
	}
	run(b, d.Sync())
	b.StopTimer()
}

// ReportRate reports per·b.N / elapsed seconds / 1e9 as unit ("GB/s" for
// bytes, "GFLOP/s" for flops), per being one launch's amount.
func ReportRate(b *testing.B, per float64, unit string) {
	b.ReportMetric(per*float64(b.N)/b.Elapsed().Seconds()/1e9, unit)
}
