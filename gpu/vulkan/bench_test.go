//go:build cgo

package vulkan

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// addKernel returns an elementwise kernel out = x + y over n float32s.
func addKernel(t testing.TB, d *Device, n int) *device.ElementwiseKernel {
	x := upload(t, d, make([]byte, 4*n))
	y := upload(t, d, make([]byte, 4*n))
	out, err := d.Alloc(int64(4 * n))
	require.NoError(t, err)
	var pb device.Builder
	pb.Output(pb.Binary(device.OpAdd, pb.Input(0, device.Float32), pb.Input(1, device.Float32)))
	shape := []int{n}
	return &device.ElementwiseKernel{
		Shape:   shape,
		Inputs:  []device.View{device.Contiguous(x, device.Float32, 0, shape), device.Contiguous(y, device.Float32, 0, shape)},
		Program: pb.P,
		Outputs: []device.View{device.Contiguous(out, device.Float32, 0, shape)},
	}
}

// BenchmarkHostOverhead measures the host time to encode and record one
// small elementwise kernel into a batched submission (the device's own
// execution excluded as far as possible: the clock runs only while
// recording; submission waits at batch boundaries are not counted).
// On lavapipe this is a software Vulkan device: the number is host CPU
// overhead, not GPU time.
func BenchmarkHostOverhead(b *testing.B) {
	d := openDevice(b)
	k := addKernel(b, d, 256)
	recordLoop(b, d, func(int) *device.ElementwiseKernel { return k })
}

// BenchmarkHostOverheadNewBindings is BenchmarkHostOverhead with every
// kernel binding a pair of buffers that no recent kernel bound (48x48 pairs
// in turn, more than the descriptor-set cache holds): with the cache, every
// dispatch is a miss.
func BenchmarkHostOverheadNewBindings(b *testing.B) {
	d := openDevice(b)
	const bufs, n = 48, 256
	ins, outs := make([]device.Buffer, bufs), make([]device.Buffer, bufs)
	for i := range ins {
		ins[i] = upload(b, d, make([]byte, 4*n))
		outs[i] = upload(b, d, make([]byte, 4*n))
	}
	recordLoop(b, d, func(i int) *device.ElementwiseKernel {
		i %= bufs * bufs
		return unaryKernel(ins[i/bufs], outs[i%bufs], n, device.OpNeg)
	})
}

// recordLoop is gputest.RecordLoop with the batch size of this backend.
func recordLoop(b *testing.B, d *Device, kernel func(int) *device.ElementwiseKernel) {
	gputest.RecordLoop(b, d, maxBatchDispatches, kernel)
}

// BenchmarkEncodeElementwise measures package gpu's encoding of the kernel
// of BenchmarkHostOverhead alone (validation, binding plan, params words).
func BenchmarkEncodeElementwise(b *testing.B) {
	d := openDevice(b)
	k := addKernel(b, d, 256)
	t := d.target()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0 := gputest.ThreadCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := gpu.EncodeElementwise(k, t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((gputest.ThreadCPU()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// deviceLabel names the adapter in benchmark logs and says when its numbers
// are software numbers.
func deviceLabel(b *testing.B, d *Device) {
	in := d.Info()
	if in.Kind.IsHardwareGPU() {
		b.Logf("device: %s (driver %s)", in.Name, in.Driver)
		return
	}
	b.Logf("device: %s (driver %s): a %s, so these are CPU (software) numbers, not GPU numbers", in.Name, in.Driver, in.Kind)
}

// BenchmarkAddBandwidth measures an elementwise float32 add of 2^22
// elements, counting 12 bytes (two loads, one store) per element. Warm-up
// (pipeline creation and first dispatch) is excluded; the device is
// synchronized before the clock stops.
func BenchmarkAddBandwidth(b *testing.B) {
	d := openDevice(b)
	deviceLabel(b, d)
	n := 1 << 22
	k := addKernel(b, d, n)
	require.NoError(b, d.Elementwise(k))
	require.NoError(b, d.Sync())
	b.SetBytes(int64(12 * n))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		require.NoError(b, d.Elementwise(k))
	}
	require.NoError(b, d.Sync())
	b.StopTimer()
	b.ReportMetric(float64(12*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

// BenchmarkMatMulFlops measures a 512x512x512 float32 matrix product,
// counting 2*M*N*K floating-point operations.
func BenchmarkMatMulFlops(b *testing.B) {
	d := openDevice(b)
	deviceLabel(b, d)
	const m = 512
	a := upload(b, d, make([]byte, 4*m*m))
	bb := upload(b, d, make([]byte, 4*m*m))
	out, err := d.Alloc(4 * m * m)
	require.NoError(b, err)
	k := &device.MatMulKernel{M: m, N: m, K: m,
		A:        device.Contiguous(a, device.Float32, 0, []int{m, m}),
		B:        device.Contiguous(bb, device.Float32, 0, []int{m, m}),
		Epilogue: device.Identity(device.Float32),
		Outputs:  []device.View{device.Contiguous(out, device.Float32, 0, []int{m, m})},
	}
	require.NoError(b, d.MatMul(k))
	require.NoError(b, d.Sync())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		require.NoError(b, d.MatMul(k))
	}
	require.NoError(b, d.Sync())
	b.StopTimer()
	b.ReportMetric(2*m*m*m*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
