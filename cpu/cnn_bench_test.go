package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// The kernels of one training step of the reference CNN (nn/train.CNN,
// batch 64): conv1 1→32 3×3 on 28×28, max-pool 2×2, conv2 32→64 3×3 on
// 13×13, max-pool 2×2. Each benchmark reports the kernel's time per call
// (ns/op) and its CPU time per call (cpu-µs/op, from getrusage), which is
// what matters on a shared machine.

// randBuffer allocates n float32 values uniform in [-1, 1) from a fixed seed.
func randBuffer(b *testing.B, d *Device, n int, seed uint64) device.Buffer {
	r := rand.New(rand.NewPCG(seed, 7))
	v := make([]float64, n)
	for i := range v {
		v[i] = r.Float64()*2 - 1
	}
	return upload(b, d, device.Float32, v)
}

// runKernel times fn, reporting CPU µs per call besides wall time.
func runKernel(b *testing.B, fn func() error) {
	if err := fn(); err != nil { // warm scratch
		b.Fatal(err)
	}
	cpu0 := processCPU()
	for b.Loop() {
		if err := fn(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((processCPU()-cpu0).Seconds()*1e6/float64(b.N), "cpu-µs/op")
}

// cnnPool is one of the CNN's max-pooling layers: N×C×H×W pooled 2×2.
type cnnPool struct{ n, c, h, w int }

// kernels returns the forward (with indices) and backward kernels over
// fresh random buffers.
func (p cnnPool) kernels(b *testing.B, d *Device) (fwd, bwd *device.PoolKernel) {
	g := geometry(p.n, p.c, p.c, p.c, []int{p.h, p.w}, []int{2, 2}, []int{2, 2}, []int{0, 0}, []int{1, 1})
	xs, ys := []int{p.n, p.c, p.h, p.w}, []int{p.n, p.c, g.Out[0], g.Out[1]}
	nx, ny := device.NumElements(xs), device.NumElements(ys)
	fwd = &device.PoolKernel{Op: device.PoolMax, Geom: g,
		X:       device.Contiguous(randBuffer(b, d, nx, 1), device.Float32, 0, xs),
		Out:     device.Contiguous(d.mustAlloc(int64(4*ny)), device.Float32, 0, ys),
		Indices: device.Contiguous(d.mustAlloc(int64(4*ny)), device.Int32, 0, ys)}
	if err := d.Pool(fwd); err != nil {
		b.Fatal(err)
	}
	bwd = &device.PoolKernel{Op: device.PoolMax, Backward: true, Geom: g, Indices: fwd.Indices,
		X:   device.Contiguous(randBuffer(b, d, ny, 2), device.Float32, 0, ys),
		Out: device.Contiguous(d.mustAlloc(int64(4*nx)), device.Float32, 0, xs)}
	return fwd, bwd
}

func BenchmarkCNNPool(b *testing.B) {
	for _, p := range []cnnPool{{64, 32, 26, 26}, {64, 64, 11, 11}, {64, 32, 28, 28}, {64, 64, 14, 14}} {
		for _, back := range []bool{false, true} {
			name := fmt.Sprintf("%dx%dx%dx%d/fwd", p.n, p.c, p.h, p.w)
			if back {
				name = name[:len(name)-3] + "bwd"
			}
			b.Run(name, func(b *testing.B) {
				d := New(benchConfig)
				defer d.Close()
				fwd, bwd := p.kernels(b, d)
				k := fwd
				if back {
					k = bwd
				}
				runKernel(b, func() error { return d.Pool(k) })
			})
		}
	}
}

// cnnConv is one of the CNN's convolutions: N×C×H×W by O×C×3×3, padded by
// p.
type cnnConv struct{ n, c, o, h, w, p int }

// kernel returns the mode's kernel over fresh random buffers.
func (c cnnConv) kernel(b *testing.B, d *Device, mode device.ConvMode) *device.ConvKernel {
	g := geometry(c.n, c.c, c.o, 1, []int{c.h, c.w}, []int{3, 3}, []int{1, 1}, []int{c.p, c.p}, []int{1, 1})
	xs, ws, ys := []int{c.n, c.c, c.h, c.w}, []int{c.o, c.c, 3, 3}, []int{c.n, c.o, g.Out[0], g.Out[1]}
	view := func(shape []int, seed uint64) device.View {
		return device.Contiguous(randBuffer(b, d, device.NumElements(shape), seed), device.Float32, 0, shape)
	}
	k := &device.ConvKernel{Mode: mode, Geom: g, Epilogue: device.Identity(device.Float32)}
	var rs []int
	switch mode {
	case device.ConvForward:
		k.A, k.B, rs = view(xs, 1), view(ws, 2), ys
	case device.ConvBackwardInput:
		k.A, k.B, rs = view(ys, 3), view(ws, 2), xs
	default:
		k.A, k.B, rs = view(ys, 3), view(xs, 1), ws
	}
	k.Outputs = []device.View{device.Contiguous(d.mustAlloc(int64(4*device.NumElements(rs))), device.Float32, 0, rs)}
	return k
}

// withBiasRelu gives a forward kernel the epilogue nn's Conv2d and ReLU
// fuse into it: a bias per output channel, then ReLU.
func withBiasRelu(b *testing.B, d *Device, k *device.ConvKernel) *device.ConvKernel {
	shape := k.Outputs[0].Shape
	bias := device.Contiguous(randBuffer(b, d, shape[1], 4), device.Float32, 0, []int{shape[1]})
	bias.Shape, bias.Strides = shape, []int{0, 1, 0, 0}
	k.Epilogue, k.EpilogueInputs = biasRelu(), []device.View{bias}
	return k
}

func BenchmarkCNNConv(b *testing.B) {
	cases := []struct {
		name     string
		c        cnnConv
		mode     device.ConvMode
		biasRelu bool // with the epilogue training runs (withBiasRelu)
	}{
		{"conv1/fwd", cnnConv{64, 1, 32, 28, 28, 0}, device.ConvForward, false},
		{"conv1/dW", cnnConv{64, 1, 32, 28, 28, 0}, device.ConvBackwardWeight, false},
		{"conv2/fwd", cnnConv{64, 32, 64, 13, 13, 0}, device.ConvForward, false},
		{"conv2/dX", cnnConv{64, 32, 64, 13, 13, 0}, device.ConvBackwardInput, false},
		{"conv2/dW", cnnConv{64, 32, 64, 13, 13, 0}, device.ConvBackwardWeight, false},
		// The padded CNN (nn/train.CNN).
		{"padded/conv1/fwd", cnnConv{64, 1, 32, 28, 28, 1}, device.ConvForward, false},
		{"padded/conv1/dW", cnnConv{64, 1, 32, 28, 28, 1}, device.ConvBackwardWeight, false},
		{"padded/conv2/fwd", cnnConv{64, 32, 64, 14, 14, 1}, device.ConvForward, false},
		{"padded/conv2/dX", cnnConv{64, 32, 64, 14, 14, 1}, device.ConvBackwardInput, false},
		{"padded/conv2/dW", cnnConv{64, 32, 64, 14, 14, 1}, device.ConvBackwardWeight, false},
		{"padded/conv1/fwd+bias+relu", cnnConv{64, 1, 32, 28, 28, 1}, device.ConvForward, true},
		{"padded/conv2/fwd+bias+relu", cnnConv{64, 32, 64, 14, 14, 1}, device.ConvForward, true},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			d := New(benchConfig)
			defer d.Close()
			k := tc.c.kernel(b, d, tc.mode)
			if tc.biasRelu {
				k = withBiasRelu(b, d, k)
			}
			runKernel(b, func() error { return d.Conv(k) })
			g := k.Geom
			flops := 2.0 * float64(g.N*g.O*g.Out[0]*g.Out[1]*g.C*9)
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
