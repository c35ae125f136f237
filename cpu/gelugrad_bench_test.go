package cpu

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// geluGradPrograms are g * gelu'(x) (inputs x, g) as elementwise programs:
// composed from the ops the tensor package's backward rules used before the
// op table had the GELUs' derivatives, and as one derivative op and a
// product; .../forward is one op alone (the GELUs, for scale, and their
// derivatives).
func geluGradPrograms() map[string]device.Program {
	f := device.Float32
	progs := map[string]device.Program{}
	one := func(name string, body func(pb *device.Builder, x, g device.Reg) device.Reg) {
		var pb device.Builder
		x, g := pb.Input(0, f), pb.Input(1, f)
		pb.Output(body(&pb, x, g))
		progs[name] = pb.P
	}
	k := func(pb *device.Builder, v float64) device.Reg { return pb.Const(v, f) }
	one("gelu_erf_grad/composed", func(pb *device.Builder, x, g device.Reg) device.Reg {
		cdf := pb.Binary(device.OpMul, pb.Binary(device.OpAdd, pb.Unary(device.OpErf, pb.Binary(device.OpMul, x, k(pb, 1/math.Sqrt2))), k(pb, 1)), k(pb, 0.5))
		pdf := pb.Binary(device.OpMul, pb.Unary(device.OpExp, pb.Binary(device.OpMul, pb.Binary(device.OpMul, x, x), k(pb, -0.5))), k(pb, 1/math.Sqrt(2*math.Pi)))
		return pb.Binary(device.OpMul, g, pb.Binary(device.OpAdd, cdf, pb.Binary(device.OpMul, x, pdf)))
	})
	one("gelu_tanh_grad/composed", func(pb *device.Builder, x, g device.Reg) device.Reg {
		c := math.Sqrt(2 / math.Pi)
		x2 := pb.Binary(device.OpMul, x, x)
		inner := pb.Binary(device.OpMul, pb.Binary(device.OpMul, x, pb.Binary(device.OpAdd, pb.Binary(device.OpMul, x2, k(pb, 0.044715)), k(pb, 1))), k(pb, c))
		th := pb.Unary(device.OpTanh, inner)
		sech2 := pb.Binary(device.OpSub, k(pb, 1), pb.Binary(device.OpMul, th, th))
		dinner := pb.Binary(device.OpMul, pb.Binary(device.OpAdd, pb.Binary(device.OpMul, x2, k(pb, 3*0.044715)), k(pb, 1)), k(pb, c))
		left := pb.Binary(device.OpMul, pb.Binary(device.OpAdd, th, k(pb, 1)), k(pb, 0.5))
		right := pb.Binary(device.OpMul, pb.Binary(device.OpMul, pb.Binary(device.OpMul, x, sech2), dinner), k(pb, 0.5))
		return pb.Binary(device.OpMul, g, pb.Binary(device.OpAdd, left, right))
	})
	for _, op := range []device.Op{device.OpGeluErfGrad, device.OpGeluTanhGrad} {
		one(op.String()+"/op", func(pb *device.Builder, x, g device.Reg) device.Reg {
			return pb.Binary(device.OpMul, g, pb.Unary(op, x))
		})
	}
	for _, op := range []device.Op{device.OpGeluErf, device.OpGeluTanh, device.OpGeluErfGrad, device.OpGeluTanhGrad} {
		one(op.String()+"/forward", func(pb *device.Builder, x, _ device.Reg) device.Reg { return pb.Unary(op, x) })
	}
	return progs
}

// BenchmarkGeluGrad times the programs of geluGradPrograms over a GPT MLP
// activation (4096x512 float32) into an output buffer reused across runs,
// so that only the kernel is timed (the tensor package's
// BenchmarkGeluGrad includes the output's allocation).
func BenchmarkGeluGrad(b *testing.B) {
	d := New(benchConfig)
	shape := []int{4096, 512}
	n := shape[0] * shape[1]
	mk := func() device.View { return device.Contiguous(d.mustAlloc(int64(4*n)), device.Float32, 0, shape) }
	x, g, out := mk(), mk(), mk()
	vals := make([]byte, 4*n)
	for i := range n {
		putU32(vals[4*i:], math.Float32bits(float32(i%97)/16-3))
	}
	for _, v := range []device.View{x, g} {
		if err := d.Write(v.Buf, 0, vals); err != nil {
			b.Fatal(err)
		}
	}
	for _, name := range []string{"gelu_erf_grad/composed", "gelu_erf_grad/op", "gelu_erf_grad/forward", "gelu_erf/forward",
		"gelu_tanh_grad/composed", "gelu_tanh_grad/op", "gelu_tanh_grad/forward", "gelu_tanh/forward"} {
		k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{x, g}, Program: geluGradPrograms()[name], Outputs: []device.View{out}}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := d.Elementwise(k); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
