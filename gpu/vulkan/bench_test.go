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
	return binaryKernel(t, d, n, func(pb *device.Builder, x, y device.Reg) device.Reg {
		return pb.Binary(device.OpAdd, x, y)
	})
}

// binaryKernel returns an elementwise kernel over n float32s whose output is
// what body builds from its two inputs x and y.
func binaryKernel(t testing.TB, d *Device, n int, body func(pb *device.Builder, x, y device.Reg) device.Reg) *device.ElementwiseKernel {
	x := upload(t, d, make([]byte, 4*n))
	y := upload(t, d, make([]byte, 4*n))
	out, err := d.Alloc(int64(4 * n))
	require.NoError(t, err)
	var pb device.Builder
	pb.Output(body(&pb, pb.Input(0, device.Float32), pb.Input(1, device.Float32)))
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

// BenchmarkAddBandwidth measures an elementwise float32 add of 2^22
// elements, counting 12 bytes (two loads, one store) per element (see
// gputest.Time: warm-up excluded, synchronized before the clock stops).
func BenchmarkAddBandwidth(b *testing.B) { gputest.BenchAdd(b, openDevice(b), 1<<22) }

// BenchmarkMatMulFlops measures a 512x512x512 float32 matrix product,
// counting 2*M*N*K floating-point operations.
func BenchmarkMatMulFlops(b *testing.B) { gputest.BenchMatMul(b, openDevice(b), 512) }

// BenchmarkConvFlops measures the reference CNN's second convolution in
// each mode (gputest.BenchConv).
func BenchmarkConvFlops(b *testing.B) { gputest.BenchConv(b, openDevice(b)) }

// BenchmarkMaxPool measures the reference CNN's first max pooling forward
// and backward (gputest.BenchMaxPool).
func BenchmarkMaxPool(b *testing.B) { gputest.BenchMaxPool(b, openDevice(b)) }
