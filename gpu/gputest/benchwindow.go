package gputest

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// BenchConv measures the reference CNN's second convolution (batch 64,
// 32→64 channels, 3×3 with padding 1 on 14×14 images) in each mode as a
// sub-benchmark, and reports GFLOP/s: 2·N·O·C·9·14² flops per launch in
// every mode.
func BenchConv(b *testing.B, d device.Device) {
	Label(b, d)
	g := device.ConvGeometry{N: 64, C: 32, O: 64, Groups: 1, In: []int{14, 14}, Kernel: []int{3, 3}, Out: []int{14, 14},
		Stride: []int{1, 1}, Padding: []int{1, 1}, Dilation: []int{1, 1}}
	x := []int{g.N, g.C, 14, 14}
	w := []int{g.O, g.C, 3, 3}
	y := []int{g.N, g.O, 14, 14}
	flops := 2 * float64(g.N*g.O*g.C*9*14*14)
	for _, m := range []struct {
		name      string
		mode      device.ConvMode
		a, b, out []int
	}{
		{"forward", device.ConvForward, x, w, y},
		{"backward_input", device.ConvBackwardInput, y, w, x},
		{"backward_weight", device.ConvBackwardWeight, y, x, w},
	} {
		b.Run(m.name, func(b *testing.B) {
			bufs := allocN(b, d, int64(4*device.NumElements(y)), 3)
			k := &device.ConvKernel{Mode: m.mode, Geom: g, Epilogue: device.Identity(device.Float32),
				A:       device.Contiguous(bufs[0], device.Float32, 0, m.a),
				B:       device.Contiguous(bufs[1], device.Float32, 0, m.b),
				Outputs: []device.View{device.Contiguous(bufs[2], device.Float32, 0, m.out)}}
			Time(b, d, 0, func() error { return d.Conv(k) })
			ReportRate(b, flops, "GFLOP/s")
		})
	}
}

// BenchMaxPool measures the reference CNN's first 2×2 max pooling (batch
// 64, 32 channels, 28×28 → 14×14) forward (with winner indices) and
// backward as sub-benchmarks, and reports GB/s of the tensors each reads
// and writes once.
func BenchMaxPool(b *testing.B, d device.Device) {
	Label(b, d)
	g := device.ConvGeometry{N: 64, C: 32, O: 32, Groups: 32, In: []int{28, 28}, Kernel: []int{2, 2}, Out: []int{14, 14},
		Stride: []int{2, 2}, Padding: []int{0, 0}, Dilation: []int{1, 1}}
	in := []int{g.N, g.C, 28, 28}
	out := []int{g.N, g.C, 14, 14}
	nIn, nOut := device.NumElements(in), device.NumElements(out)
	bufs := allocN(b, d, int64(4*nIn), 4)
	x, y, idx, dx := bufs[0], bufs[1], bufs[2], bufs[3]
	fwd := &device.PoolKernel{Op: device.PoolMax, Geom: g, X: device.Contiguous(x, device.Float32, 0, in),
		Out: device.Contiguous(y, device.Float32, 0, out), Indices: device.Contiguous(idx, device.Int32, 0, out)}
	run(b, d.Pool(fwd)) // winners for the backward pass
	b.Run("forward", func(b *testing.B) {
		bytes := int64(4 * (nIn + 2*nOut))
		Time(b, d, bytes, func() error { return d.Pool(fwd) })
	})
	b.Run("backward", func(b *testing.B) {
		bwd := &device.PoolKernel{Op: device.PoolMax, Backward: true, Geom: g, X: device.Contiguous(y, device.Float32, 0, out),
			Out: device.Contiguous(dx, device.Float32, 0, in), Indices: device.Contiguous(idx, device.Int32, 0, out)}
		Time(b, d, int64(4*(2*nOut+nIn)), func() error { return d.Pool(bwd) })
	})
}
