//go:build cgo

package vulkan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// chainKernel returns an elementwise kernel over n float32s with a chain of
// eight ops: out = relu(x*y + x) * sigmoid(y) - exp(-|x|).
func chainKernel(t testing.TB, d *Device, n int) *device.ElementwiseKernel {
	return binaryKernel(t, d, n, func(pb *device.Builder, x, y device.Reg) device.Reg {
		a := pb.Unary(device.OpRelu, pb.Binary(device.OpAdd, pb.Binary(device.OpMul, x, y), x))
		s := pb.Binary(device.OpMul, a, pb.Unary(device.OpSigmoid, y))
		return pb.Binary(device.OpSub, s, pb.Unary(device.OpExp, pb.Unary(device.OpNeg, pb.Unary(device.OpAbs, x))))
	})
}

// matmulEpilogueKernel returns an m×m×m float32 matmul with a fused
// epilogue relu(acc + bias[j]).
func matmulEpilogueKernel(t testing.TB, d *Device, m int) *device.MatMulKernel {
	a := upload(t, d, make([]byte, 4*m*m))
	bb := upload(t, d, make([]byte, 4*m*m))
	bias := upload(t, d, make([]byte, 4*m))
	out, err := d.Alloc(int64(4 * m * m))
	require.NoError(t, err)
	var pb device.Builder
	pb.Output(pb.Unary(device.OpRelu, pb.Binary(device.OpAdd, pb.Input(0, device.Float32), pb.Input(1, device.Float32))))
	return &device.MatMulKernel{M: m, N: m, K: m,
		A:              device.Contiguous(a, device.Float32, 0, []int{m, m}),
		B:              device.Contiguous(bb, device.Float32, 0, []int{m, m}),
		Epilogue:       pb.P,
		EpilogueInputs: []device.View{{Buf: bias, DType: device.Float32, Shape: []int{m, m}, Strides: []int{0, 1}}},
		Outputs:        []device.View{device.Contiguous(out, device.Float32, 0, []int{m, m})},
	}
}

// BenchmarkFusedChain measures the eight-op elementwise chain of
// chainKernel on 2^18 elements (12 bytes moved per element).
func BenchmarkFusedChain(b *testing.B) {
	d := openDevice(b)
	gputest.Label(b, d)
	n := 1 << 18
	k := chainKernel(b, d, n)
	gputest.Time(b, d, int64(12*n), func() error { return d.Elementwise(k) })
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/element")
}

// BenchmarkMatMulEpilogue measures a 256³ float32 matmul with a fused
// bias-and-relu epilogue.
func BenchmarkMatMulEpilogue(b *testing.B) {
	d := openDevice(b)
	gputest.Label(b, d)
	const m = 256
	k := matmulEpilogueKernel(b, d, m)
	gputest.Time(b, d, 0, func() error { return d.MatMul(k) })
	gputest.ReportRate(b, 2*m*m*m, "GFLOP/s")
}

// BenchmarkFirstDispatch measures a kernel's first run on a fresh device:
// pipeline creation (SPIR-V generation included where the backend
// generates it), the driver's compilation at first dispatch (lavapipe
// compiles then) and one small run, with Sync. Device setup is excluded.
func BenchmarkFirstDispatch(b *testing.B) {
	for _, c := range []struct {
		name string
		run  func(testing.TB, *Device) func() error
	}{
		{"elementwise-chain", func(t testing.TB, d *Device) func() error {
			k := chainKernel(t, d, 1024)
			return func() error { return d.Elementwise(k) }
		}},
		{"matmul-epilogue", func(t testing.TB, d *Device) func() error {
			k := matmulEpilogueKernel(t, d, 64)
			return func() error { return d.MatMul(k) }
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				d := openDevice(b)
				run := c.run(b, d)
				require.NoError(b, d.Sync())
				b.StartTimer()
				t0 := time.Now()
				require.NoError(b, run())
				require.NoError(b, d.Sync())
				total += time.Since(t0)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/first-run")
		})
	}
}

// plainAddShader is a hand-written float32 add with plain arrays: the
// ceiling the generated kernels are compared with.
const plainAddShader = `
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < params[0]) {
        out[g.x] = x[g.x] + y[g.x];
    }
}
`

// BenchmarkPlainAdd runs plainAddShader on the 2^22 elements of
// BenchmarkAddBandwidth (compiled with naga; skipped without it).
func BenchmarkPlainAdd(b *testing.B) {
	d := openDevice(b)
	gputest.Label(b, d)
	words := compileTestShader(b, plainAddShader)
	p, err := d.newPipeline(words, "main")
	require.NoError(b, err)
	n := 1 << 22
	k := addKernel(b, d, n)
	l := &gpu.Launch{Kind: shaders.Kind("plain-add"), Entry: "main", Params: []uint32{uint32(n)}, Workgroups: n / gpu.WorkgroupSize}
	for _, v := range []device.View{k.Inputs[0], k.Inputs[1], k.Outputs[0]} {
		l.Bindings = append(l.Bindings, gpu.Binding{Buf: v.Buf, Size: v.Buf.Bytes()})
	}
	launch := func() error {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.pipelines.add(l, p)
		return d.record(l, k.Outputs[0].Buf)
	}
	gputest.Time(b, d, int64(12*n), launch)
	gputest.ReportRate(b, float64(12*n), "GB/s")
}
