package tensor

import (
	"math"
	"math/rand/v2"
	"testing"

	_ "github.com/shaderflow/shaderflow/cpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// composedGeluGrads are the GELU derivatives as the backward rules built
// them from about twelve elementwise ops before the op table had
// gelu_erf_grad and gelu_tanh_grad: the baseline of BenchmarkGeluGrad.
var composedGeluGrads = map[device.Op]func(x *Tensor) *Tensor{
	device.OpGeluErfGrad: func(x *Tensor) *Tensor {
		cdf := x.MulScalar(1 / math.Sqrt2).Erf().AddScalar(1).MulScalar(0.5)
		pdf := x.Mul(x).MulScalar(-0.5).Exp().MulScalar(1 / math.Sqrt(2*math.Pi))
		return cdf.Add(x.Mul(pdf))
	},
	device.OpGeluTanhGrad: func(x *Tensor) *Tensor {
		k := math.Sqrt(2 / math.Pi)
		x2 := x.Mul(x)
		th := x.Mul(x2.MulScalar(0.044715).AddScalar(1)).MulScalar(k).Tanh()
		sech2 := th.Mul(th).RSubScalar(1)
		dinner := x2.MulScalar(3 * 0.044715).AddScalar(1).MulScalar(k)
		return th.AddScalar(1).MulScalar(0.5).Add(x.Mul(sech2).Mul(dinner).MulScalar(0.5))
	},
}

// BenchmarkGeluGrad times a GELU's input gradient g * gelu'(x) on the CPU
// backend at a GPT MLP activation's size (4096x512 float32): composed from
// elementwise ops (the old rules), as one derivative op and a product (the
// rules now), and the forward GELU for scale.
func BenchmarkGeluGrad(b *testing.B) {
	d, err := Open("cpu")
	if err != nil {
		b.Skip(err)
	}
	defer func() { _ = d.Close() }()
	const rows, cols = 4096, 512
	r := rand.New(rand.NewPCG(1, 2))
	xs, gs := make([]float32, rows*cols), make([]float32, rows*cols)
	for i := range xs {
		xs[i], gs[i] = float32(2*r.NormFloat64()), float32(r.NormFloat64())
	}
	x, g := FromFloat32s(d, xs, rows, cols), FromFloat32s(d, gs, rows, cols)
	if err := Realize(x, g); err != nil {
		b.Fatal(err)
	}
	run := func(name string, f func() *Tensor) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				d.Scope(func() {
					if err := f().Realize(); err != nil {
						b.Fatal(err)
					}
				})
			}
		})
	}
	for _, op := range []device.Op{device.OpGeluErfGrad, device.OpGeluTanhGrad} {
		run(op.String()+"/composed", func() *Tensor { return g.Mul(composedGeluGrads[op](x)) })
		run(op.String()+"/op", func() *Tensor { return g.Mul(x.unaryNoGrad(op)) })
	}
	run("gelu_erf/forward", x.Gelu)
	run("gelu_tanh/forward", x.GeluTanh)
}
