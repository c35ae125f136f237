package cpu

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/internal/cputime"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// benchAdd builds out = a + b over n contiguous float32 elements.
func benchAdd(b *testing.B, d *Device, n int) *device.ElementwiseKernel {
	shape := []int{n}
	var pb device.Builder
	pb.Output(pb.Binary(device.OpAdd, pb.Input(0, device.Float32), pb.Input(1, device.Float32)))
	mk := func() device.View { return device.Contiguous(d.mustAlloc(int64(4*n)), device.Float32, 0, shape) }
	return &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{mk(), mk()}, Program: pb.P, Outputs: []device.View{mk()}}
}

// benchConfig opens the devices of kernel benchmarks: synchronous, so that
// each iteration times its kernel, not the queueing of a call that the
// device's goroutine runs later.
var benchConfig = Config{Synchronous: true}

// BenchmarkElementwiseTiny is the per-kernel overhead: a 100-element add
// run and read back (400 bytes).
func BenchmarkElementwiseTiny(b *testing.B) {
	d := New(benchConfig)
	k := benchAdd(b, d, 100)
	out := make([]byte, 400)
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		if err := d.Elementwise(k); err != nil {
			b.Fatal(err)
		}
		if err := d.Read(k.Outputs[0].Buf, 0, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkAdd1e7 is a memory-bound add of 10^7 floats; bytes count both
// inputs and the output.
func BenchmarkAdd1e7(b *testing.B) {
	d := New(benchConfig)
	const n = 10_000_000
	k := benchAdd(b, d, n)
	fillInputs(b, d, k)
	b.SetBytes(3 * 4 * n)
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		if err := d.Elementwise(k); err != nil {
			b.Fatal(err)
		}
	}
	reportPerCPU(b, cpu0, 3*4*n/1e9, "GB/cpu-s")
}

// reportPerCPU reports units of work per second of process CPU time (all
// threads together) since cpu0: a rate that, unlike wall time, does not
// depend on how many other processes share the machine.
func reportPerCPU(b *testing.B, cpu0 time.Duration, perOp float64, unit string) {
	if used := (processCPU() - cpu0).Seconds(); used > 0 {
		b.ReportMetric(perOp*float64(b.N)/used, unit)
	}
}

// BenchmarkSum1e7 reduces 10^7 floats to a scalar.
func BenchmarkSum1e7(b *testing.B) {
	d := New(benchConfig)
	const n = 10_000_000
	in := device.Contiguous(d.mustAlloc(4*n), device.Float32, 0, []int{n})
	k := &device.ReduceKernel{Op: device.ReduceSum, RedShape: []int{n}, Inputs: []device.View{in},
		Prologue: device.Identity(device.Float32), Epilogue: device.Identity(device.Float32),
		Outputs: []device.View{{Buf: d.mustAlloc(4), DType: device.Float32}}}
	b.SetBytes(4 * n)
	cpu0 := processCPU()
	for b.Loop() {
		if err := d.Reduce(k); err != nil {
			b.Fatal(err)
		}
	}
	reportPerCPU(b, cpu0, 4*n/1e9, "GB/cpu-s")
}

// BenchmarkSgemm512 is the sgemm seam alone on one goroutine, 512³.
func BenchmarkSgemm512(b *testing.B) {
	const n = 512
	a, bb, c := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range a {
		a[i], bb[i] = float32(i%7)-3, float32(i%5)-2
	}
	cpu0 := processCPU()
	for b.Loop() {
		sgemm(1, false, false, n, n, n, 1, a, n, bb, n, 0, c, n)
	}
	b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	reportPerCPU(b, cpu0, 2*n*n*n/1e9, "GFLOP/cpu-s")
}

// BenchmarkMatMul512 is a 512³ product through the device, on every worker.
func BenchmarkMatMul512(b *testing.B) {
	d := New(benchConfig)
	const n = 512
	v := func() device.View { return device.Contiguous(d.mustAlloc(4*n*n), device.Float32, 0, []int{n, n}) }
	k := &device.MatMulKernel{M: n, N: n, K: n, A: v(), B: v(), Epilogue: device.Identity(device.Float32), Outputs: []device.View{v()}}
	cpu0 := processCPU()
	for b.Loop() {
		if err := d.MatMul(k); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	reportPerCPU(b, cpu0, 2*n*n*n/1e9, "GFLOP/cpu-s")
}

// benchChain4 builds out = relu(x*z + x) * 0.5 over n contiguous float32
// elements: the benchmark command's fused chain of four ops.
func benchChain4(d *Device, n int) *device.ElementwiseKernel {
	shape := []int{n}
	var pb device.Builder
	x, z := pb.Input(0, device.Float32), pb.Input(1, device.Float32)
	y := pb.Unary(device.OpRelu, pb.Binary(device.OpAdd, pb.Binary(device.OpMul, x, z), x))
	pb.Output(pb.Binary(device.OpMul, y, pb.Const(0.5, device.Float32)))
	mk := func() device.View { return device.Contiguous(d.mustAlloc(int64(4*n)), device.Float32, 0, shape) }
	return &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{mk(), mk()}, Program: pb.P, Outputs: []device.View{mk()}}
}

// fillInputs writes values into a kernel's float32 inputs: buffers never
// written read as the kernel's shared zero page, which measured several
// times slower than real data.
func fillInputs(b *testing.B, d *Device, k *device.ElementwiseKernel) {
	for _, v := range k.Inputs {
		n := v.Offset + 1 // elements the view spans
		for i, e := range v.Shape {
			n += (e - 1) * v.Strides[i]
		}
		vals := make([]byte, 4*n)
		for i := range n {
			putU32(vals[4*i:], math.Float32bits(float32(i%7)-3))
		}
		if err := d.Write(v.Buf, 0, vals); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChain4 runs the fused chain on 10^7 floats (memory-bound) and
// on 2^16 (cache-resident: the interpreter's own cost); bytes count both
// inputs and the output.
func BenchmarkChain4(b *testing.B) {
	for _, n := range []int{10_000_000, 1 << 16} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			d := New(benchConfig)
			k := benchChain4(d, n)
			fillInputs(b, d, k)
			b.SetBytes(int64(12 * n))
			cpu0 := processCPU()
			for b.Loop() {
				if err := d.Elementwise(k); err != nil {
					b.Fatal(err)
				}
			}
			reportPerCPU(b, cpu0, float64(12*n)/1e9, "GB/cpu-s")
		})
	}
}

// BenchmarkReluBackward runs ReLU's backward program, where(x > 0, g, 0),
// on 2^16 cache-resident floats (bytes: x and g read, the result written).
func BenchmarkReluBackward(b *testing.B) {
	const n = 1 << 16
	d := New(benchConfig)
	shape := []int{n}
	var pb device.Builder
	x, g := pb.Input(0, device.Float32), pb.Input(1, device.Float32)
	zero := pb.Const(0, device.Float32)
	pb.Output(pb.Where(pb.Binary(device.OpGt, x, zero), g, zero))
	mk := func() device.View { return device.Contiguous(d.mustAlloc(4*n), device.Float32, 0, shape) }
	k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{mk(), mk()}, Program: pb.P, Outputs: []device.View{mk()}}
	fillInputs(b, d, k)
	b.SetBytes(12 * n)
	cpu0 := processCPU()
	for b.Loop() {
		if err := d.Elementwise(k); err != nil {
			b.Fatal(err)
		}
	}
	reportPerCPU(b, cpu0, 12*n/1e9, "GB/cpu-s")
}

// BenchmarkSoftmaxDivide runs the last kernel of a softmax over the rows of
// a 64×1024 matrix: exp(x - max) / sum with the row's max and sum broadcast
// along the row (bytes: x read, the result written).
func BenchmarkSoftmaxDivide(b *testing.B) {
	const rows, cols = 64, 1024
	d := New(benchConfig)
	shape := []int{rows, cols}
	var pb device.Builder
	x, m, s := pb.Input(0, device.Float32), pb.Input(1, device.Float32), pb.Input(2, device.Float32)
	pb.Output(pb.Binary(device.OpDiv, pb.Unary(device.OpExp, pb.Binary(device.OpSub, x, m)), s))
	row := func() device.View {
		return device.View{Buf: d.mustAlloc(4 * rows), DType: device.Float32, Shape: shape, Strides: []int{1, 0}}
	}
	in := device.Contiguous(d.mustAlloc(4*rows*cols), device.Float32, 0, shape)
	k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{in, row(), row()}, Program: pb.P,
		Outputs: []device.View{device.Contiguous(d.mustAlloc(4*rows*cols), device.Float32, 0, shape)}}
	fillInputs(b, d, k)
	b.SetBytes(8 * rows * cols)
	cpu0 := processCPU()
	for b.Loop() {
		if err := d.Elementwise(k); err != nil {
			b.Fatal(err)
		}
	}
	reportPerCPU(b, cpu0, 8*rows*cols/1e9, "GB/cpu-s")
}

// processCPU returns the process's user+system CPU time (zero where the
// system does not report it). On a shared, oversubscribed machine, CPU time
// per op is steadier than wall time.
func processCPU() time.Duration {
	d, _ := cputime.Process()
	return d
}
