package conformance

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// narrowCases check that a float16 or bfloat16 intermediate rounds to its
// type inside a fused kernel exactly as when it is stored: a cast chain, an
// arithmetic result of a narrow type read by a further op, a narrow
// reduction's or product's epilogue, and a gradient through casts. The
// inputs make one rounding visible (a sum of 2^(p+1)+1 with p mantissa bits
// loses its 1; float16's 65504+65504 overflows), so the results are exact.
func narrowCases() []testCase {
	var cs []testCase
	for _, dt := range []tensor.DType{tensor.Float16, tensor.BFloat16} {
		rnd := func(a *ref.Array) *ref.Array { return ref.Map(a, func(f float64) float64 { return round(dt, f) }) }
		// big is 2^(p+1) for p explicit mantissa bits: big+1 rounds to big.
		big := 2048.0
		if dt == tensor.BFloat16 {
			big = 256
		}
		cs = append(cs, testCase{name: caseName("cast_chain", dt.String(), "6"), run: func(e *env) {
			x := e.constant(tensor.Float32, []float64{65519, 1.0012207, 0.1, big + 1, 1e-8, -70000}, 6)
			e.expect("Cast(dt).Cast(float32)", tensor.Float32, rnd(x.R), exact, func() *tensor.Tensor {
				return x.T.Cast(dt).Cast(tensor.Float32)
			})
			e.expect("Cast(dt).Cast(float32).Mul(x)", tensor.Float32, ref.Map(ref.Mul(rnd(x.R), x.R), ref.RoundFloat32), f32, func() *tensor.Tensor {
				return x.T.Cast(dt).Cast(tensor.Float32).Mul(x.T)
			})
		}})
		cs = append(cs, testCase{name: caseName("add_then_scale", dt.String(), "5"), run: func(e *env) {
			h := e.constant(dt, []float64{65504, 1000, 2, big + 2, -3e38}, 5)
			want := rnd(ref.Map(rnd(ref.Add(h.R, h.R)), func(f float64) float64 { return f * 0.5 }))
			e.expect("h.Add(h).MulScalar(0.5)", dt, want, exact, func() *tensor.Tensor { return h.T.Add(h.T).MulScalar(0.5) })
		}})
		cs = append(cs, testCase{name: caseName("sum_then_sub", dt.String(), "3x2"), run: func(e *env) {
			h := e.constant(dt, []float64{big, 1, 3, 4, 65504, 65504}, 3, 2)
			want := rnd(ref.Map(rnd(ref.Sum(h.R, false, 1)), func(f float64) float64 { return f - big }))
			e.expect("h.Sum(1).SubScalar(big)", dt, want, exact, func() *tensor.Tensor { return h.T.Sum(1).SubScalar(big) })
		}})
		cs = append(cs, testCase{name: caseName("matmul_then_sub", dt.String(), "2x2,2x1"), run: func(e *env) {
			a := e.constant(dt, []float64{big, 1, 3, 4}, 2, 2)
			b := e.constant(dt, []float64{1, 1}, 2, 1)
			want := rnd(ref.Map(rnd(ref.MatMul(a.R, b.R)), func(f float64) float64 { return f - big }))
			e.expect("a.MatMul(b).SubScalar(big)", dt, want, exact, func() *tensor.Tensor { return a.T.MatMul(b.T).SubScalar(big) })
		}})
		cs = append(cs, testCase{name: caseName("from_float64", dt.String(), "6"), run: func(e *env) {
			// Float64 values a float32 ulp or less from a midpoint of dt
			// round once, to the neighbour they are nearer: through float32
			// (which rounds them onto the midpoint) they would round twice.
			if !e.dev.Supports(tensor.Float64) {
				return
			}
			mid, tiny := 1756.5, math.Ldexp(1, -30)
			if dt == tensor.BFloat16 {
				mid = 1.00390625
			}
			once := ref.RoundFloat16
			if dt == tensor.BFloat16 {
				once = ref.RoundBFloat16Once
			}
			x := e.constant(tensor.Float64, []float64{mid * (1 + tiny), mid * (1 - tiny), mid, -mid * (1 + tiny), 3 * mid * (1 - tiny), 70000.5}, 6)
			want := ref.Map(x.R, once)
			e.expect("Cast(dt)", dt, want, exact, func() *tensor.Tensor { return x.T.Cast(dt) })
			e.expect("Cast(dt).Cast(float64).MulScalar(2)", tensor.Float64, ref.Map(want, func(f float64) float64 { return 2 * f }), exact,
				func() *tensor.Tensor { return x.T.Cast(dt).Cast(tensor.Float64).MulScalar(2) })
		}})
		cs = append(cs, testCase{name: caseName("cast_chain_grad", dt.String(), "4"), run: func(e *env) {
			// d/dx sum(x.Cast(dt).Cast(float32) * w) is w rounded to dt,
			// as in PyTorch: each cast's gradient is cast back to its input's type.
			x := e.constant(tensor.Float32, []float64{1, 2, 3, 4}, 4)
			w := e.constant(tensor.Float32, []float64{1.0012207, 70000, 0.1, big + 1}, 4)
			xt := x.T.Detach().SetRequiresGrad(true)
			loss := xt.Cast(dt).Cast(tensor.Float32).Mul(w.T).Sum()
			e.noErr(loss.Backward(), "Backward")
			e.compare("grad of a cast chain", xt.Grad(), tensor.Float32, rnd(w.R), exact)
		}})
	}
	return cs
}
