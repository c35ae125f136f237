package conformance

import (
	"math"
	"math/rand/v2"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

func int32Cases() []testCase {
	small := ints(-1000, 1000)
	ops := []binaryOp{
		{"add", (*tensor.Tensor).Add, ref.Add, small, small, exact, asInput},
		{"sub", (*tensor.Tensor).Sub, ref.Sub, small, small, exact, asInput},
		{"mul", (*tensor.Tensor).Mul, ref.Mul, small, small, exact, asInput},
		{"maximum", (*tensor.Tensor).Maximum, ref.Maximum, small, small, exact, asInput},
		{"minimum", (*tensor.Tensor).Minimum, ref.Minimum, small, small, exact, asInput},
	}
	ops = append(ops,
		binaryOp{"div", (*tensor.Tensor).Div, ref.Div, small, nonzero(-50, 50), f32, tensor.Float32},
		binaryOp{"floor_div", (*tensor.Tensor).FloorDiv, ref.FloorDiv, small, nonzero(-50, 50), exact, asInput})
	ops = append(ops, compareOps(ints(-3, 3))...)
	var cs []testCase
	for _, op := range ops {
		cs = append(cs, binaryCasesFor(op, tensor.Int32)...)
	}
	for _, u := range []unaryOp{
		{"neg", (*tensor.Tensor).Neg, ref.Neg, small},
		{"abs", (*tensor.Tensor).Abs, ref.Abs, small},
	} {
		for _, l := range layoutsFor([]int{5, 7}) {
			cs = append(cs, testCase{name: caseName(u.name, "int32", "5x7", l.name), run: func(e *env) {
				x := e.input(tensor.Int32, u.dom, l, 5, 7)
				e.expect(u.name, tensor.Int32, u.ref(x.R), exact, func() *tensor.Tensor { return u.dev(x.T) })
			}})
		}
	}
	cs = append(cs, testCase{name: caseName("where", "int32", "3x1x5,4x1,scalar"), run: func(e *env) {
		c := e.input(tensor.Bool, ints(0, 1), contiguous, 3, 1, 5)
		x, y := e.input(tensor.Int32, small, contiguous, 4, 1), e.input(tensor.Int32, small, contiguous)
		e.expect("Where", tensor.Int32, ref.Where(c.R, x.R, y.R), exact, func() *tensor.Tensor { return tensor.Where(c.T, x.T, y.T) })
	}})
	return cs
}

func boolCases() []testCase {
	var cs []testCase
	bits := ints(0, 1)
	logic := append(compareOps(bits)[:2], // Eq and Ne are the logic ops xnor and xor
		binaryOp{"logical_and", (*tensor.Tensor).LogicalAnd, ref.And, bits, bits, exact, tensor.Bool},
		binaryOp{"logical_or", (*tensor.Tensor).LogicalOr, ref.Or, bits, bits, exact, tensor.Bool})
	for _, op := range logic {
		cs = append(cs, binaryCasesFor(op, tensor.Bool)...)
	}
	for _, l := range allLayouts {
		cs = append(cs, testCase{name: caseName("not", "bool", "4x6", l.name), run: func(e *env) {
			x := e.input(tensor.Bool, bits, l, 4, 6)
			e.expect("Not", tensor.Bool, ref.Not(x.R), exact, func() *tensor.Tensor { return x.T.Not() })
		}})
	}
	for _, l := range []layout{contiguous, transposed, strided, expanded} {
		cs = append(cs, testCase{name: caseName("where", "bool", "4x6", l.name), run: func(e *env) {
			c := e.input(tensor.Bool, bits, l, 4, 6)
			x, y := e.input(tensor.Bool, bits, contiguous, 4, 6), e.input(tensor.Bool, bits, contiguous, 6)
			e.expect("Where", tensor.Bool, ref.Where(c.R, x.R, y.R), exact, func() *tensor.Tensor { return tensor.Where(c.T, x.T, y.T) })
		}})
	}
	cs = append(cs, testCase{name: caseName("compare_chain", "bool", "5x7"), run: func(e *env) {
		// (x > 0) == (y < 0), a logic op over comparisons, fused or not.
		x, y := e.randn(5, 7), e.randn(7)
		zero := ref.Scalar(0)
		want := ref.Eq(ref.Gt(x.R, zero), ref.Lt(y.R, zero))
		z := tensor.Zeros(e.dev)
		e.expect("Eq(Gt, Lt)", tensor.Bool, want, exact, func() *tensor.Tensor { return x.T.Gt(z).Eq(y.T.Lt(z)) })
	}})
	return cs
}

// wide draws values spread over many binades, including ones that overflow
// float16 and ones that are subnormal in it.
func wide(r *rand.Rand) float64 { return r.NormFloat64() * math.Pow(10, -9+15*r.Float64()) }

func halfCases() []testCase {
	var cs []testCase
	for _, dt := range []tensor.DType{tensor.Float16, tensor.BFloat16} {
		rt := func(name string, vals []float64) testCase {
			return testCase{name: caseName("round_trip", dt.String(), name), run: func(e *env) {
				var v []float64
				if vals != nil {
					v = append(v, vals...)
				} else {
					for range 4099 {
						v = append(v, float64(float32(wide(e.rng))))
					}
				}
				x := e.constant(tensor.Float32, v, len(v))
				want := ref.Map(x.R, func(f float64) float64 { return round(dt, f) })
				h := e.expect("Cast", dt, want, exact, func() *tensor.Tensor { return x.T.Cast(dt) })
				e.expect("Cast back to float32", tensor.Float32, want, exact, func() *tensor.Tensor { return h.Cast(tensor.Float32) })
			}}
		}
		cs = append(cs, rt("random", nil),
			rt("special", []float64{0, math.Copysign(0, -1), 1, -1, 65504, 65520, -1e6, 6e-8, 3e-8, math.Inf(1), math.Inf(-1), math.NaN(), 3.1415927, 1 + 1.0/1024, 1 + 1.0/2048, 1 + 3.0/2048}))
		// Ops on half-precision tensors compute in float32 and store dt.
		bin := []binaryOp{
			{"add", (*tensor.Tensor).Add, ref.Add, normal, normal, f32, asInput},
			{"mul", (*tensor.Tensor).Mul, ref.Mul, normal, normal, f32, asInput},
			{"div", (*tensor.Tensor).Div, ref.Div, normal, awayFromZero, f32, asInput},
			{"maximum", (*tensor.Tensor).Maximum, ref.Maximum, normal, normal, exact, asInput},
			{"lt", (*tensor.Tensor).Lt, ref.Lt, ints(-2, 2), ints(-2, 2), exact, tensor.Bool},
		}
		for _, op := range bin {
			cs = append(cs, binaryCasesOn(op, dt, binaryShapes[2:4], layoutPairs[:3])...)
		}
		for _, op := range pickUnary("neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "gelu", "gelu_tanh", "silu") {
			for _, l := range []layout{contiguous, transposed} {
				cs = append(cs, testCase{name: caseName(op.name, dt.String(), "5x7", l.name), run: func(e *env) {
					x := e.input(dt, op.dom, l, 5, 7)
					// The exact result stored in dt: exp of a large input
					// overflows float16 to +Inf.
					want := ref.Map(op.ref(x.R), func(f float64) float64 { return round(dt, f) })
					e.expect(op.name, dt, want, f32.forDType(dt), func() *tensor.Tensor { return op.dev(x.T) })
				}})
			}
		}
		cs = append(cs, testCase{name: caseName("sum_mean_softmax", dt.String(), "6x33"), run: func(e *env) {
			x := e.input(dt, normal, transposed, 6, 33)
			e.expect("Sum", dt, ref.Sum(x.R, false, 1), sumTol(1e-5, 33, reduceSq(x.R, false, 1)).forDType(dt), func() *tensor.Tensor { return x.T.Sum(1) })
			e.expect("Mean", dt, ref.Mean(x.R, false, 0), meanTol(1e-5, 6, reduceSq(x.R, false, 0)).forDType(dt), func() *tensor.Tensor { return x.T.Mean(0) })
			e.expect("Softmax", dt, ref.Softmax(x.R, -1), softmaxTol(33).forDType(dt), func() *tensor.Tensor { return x.T.Softmax(-1) })
		}})
		cs = append(cs, testCase{name: caseName("matmul", dt.String(), "9x31,31x5"), run: func(e *env) {
			a, b := e.input(dt, normal, contiguous, 9, 31), e.input(dt, normal, transposed, 31, 5)
			e.expect("MatMul", dt, ref.MatMul(a.R, b.R), matmulTol(a.R, b.R).forDType(dt), func() *tensor.Tensor { return a.T.MatMul(b.T) })
		}})
	}
	return cs
}
