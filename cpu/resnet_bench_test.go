package cpu

import (
	"fmt"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// The convolutions of torchvision's ResNet-18 at 224×224 (batches 1 and 32,
// the ONNX benchmark's sizes), forward only, without the network's epilogues.
// Each reports GFLOP/s, and net-ms: the time of all the network's
// convolutions of that shape; compare with the FMA peak (gemm.PeakGFLOPS)
// on the same machine.

// resnetConv is one distinct convolution shape of ResNet-18.
type resnetConv struct {
	name              string
	c, o, hw, k, s, p int
	count             int // how many times the network runs it
}

var resnetConvs = []resnetConv{
	{"conv1", 3, 64, 224, 7, 2, 3, 1},
	{"layer1", 64, 64, 56, 3, 1, 1, 4},
	{"layer2.down", 64, 128, 56, 3, 2, 1, 1},
	{"layer2", 128, 128, 28, 3, 1, 1, 3},
	{"layer2.ds", 64, 128, 56, 1, 2, 0, 1},
	{"layer3.down", 128, 256, 28, 3, 2, 1, 1},
	{"layer3", 256, 256, 14, 3, 1, 1, 3},
	{"layer3.ds", 128, 256, 28, 1, 2, 0, 1},
	{"layer4.down", 256, 512, 14, 3, 2, 1, 1},
	{"layer4", 512, 512, 7, 3, 1, 1, 3},
	{"layer4.ds", 256, 512, 14, 1, 2, 0, 1},
}

func BenchmarkResNet18Conv(b *testing.B) {
	for _, batch := range []int{1, 32} {
		for _, rc := range resnetConvs {
			b.Run(fmt.Sprintf("b%d/%s", batch, rc.name), func(b *testing.B) {
				d := New(benchConfig)
				defer d.Close()
				g := geometry(batch, rc.c, rc.o, 1, []int{rc.hw, rc.hw}, []int{rc.k, rc.k}, []int{rc.s, rc.s}, []int{rc.p, rc.p}, []int{1, 1})
				xs, ws, ys := []int{batch, rc.c, rc.hw, rc.hw}, []int{rc.o, rc.c, rc.k, rc.k}, []int{batch, rc.o, g.Out[0], g.Out[1]}
				view := func(shape []int, seed uint64) device.View {
					return device.Contiguous(randBuffer(b, d, device.NumElements(shape), seed), device.Float32, 0, shape)
				}
				k := &device.ConvKernel{Mode: device.ConvForward, Geom: g, Epilogue: device.Identity(device.Float32),
					A: view(xs, 1), B: view(ws, 2)}
				k.Outputs = []device.View{device.Contiguous(d.mustAlloc(int64(4*device.NumElements(ys))), device.Float32, 0, ys)}
				runKernel(b, func() error { return d.Conv(k) })
				flops := 2.0 * float64(batch*rc.o*g.Out[0]*g.Out[1]*rc.c*rc.k*rc.k)
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				b.ReportMetric(float64(rc.count)*b.Elapsed().Seconds()*1e3/float64(b.N), "net-ms")
			})
		}
	}
}

// BenchmarkResNet18MaxPool is ResNet-18's max pooling (3×3, stride 2,
// padding 1, 112×112 → 56×56, 64 channels), inference (no indices).
func BenchmarkResNet18MaxPool(b *testing.B) {
	for _, batch := range []int{1, 32} {
		b.Run(fmt.Sprintf("b%d", batch), func(b *testing.B) {
			d := New(benchConfig)
			defer d.Close()
			g := geometry(batch, 64, 64, 64, []int{112, 112}, []int{3, 3}, []int{2, 2}, []int{1, 1}, []int{1, 1})
			xs, ys := []int{batch, 64, 112, 112}, []int{batch, 64, g.Out[0], g.Out[1]}
			k := &device.PoolKernel{Op: device.PoolMax, Geom: g,
				X:   device.Contiguous(randBuffer(b, d, device.NumElements(xs), 1), device.Float32, 0, xs),
				Out: device.Contiguous(d.mustAlloc(int64(4*device.NumElements(ys))), device.Float32, 0, ys)}
			runKernel(b, func() error { return d.Pool(k) })
			b.ReportMetric(float64(4*device.NumElements(xs))*float64(b.N)/b.Elapsed().Seconds()/1e9, "in-GB/s")
		})
	}
}
