package conformance

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

var (
	inf = math.Inf(1)
	nan = math.NaN()
)

func edgeCases() []testCase {
	return []testCase{
		{name: "softmax_logits_1e4", run: func(e *env) {
			x := e.constant(tensor.Float32, []float64{
				1e4, -1e4, 0, 1e4 - 1,
				-1e4, -1e4, -1e4 + 2, -1e4,
				1e4, 1e4, 1e4, 1e4,
			}, 3, 4)
			checkSoftmaxPair(e, x, 1)
			checkSoftmaxPair(e, x, 0)
		}},
		{name: "softmax_minus_inf", run: func(e *env) {
			x := e.constant(tensor.Float32, []float64{
				-inf, 0, 1, -inf,
				-inf, -inf, -inf, -inf, // all -inf: NaN, like torch
				2, -inf, -inf, -inf,
				0.5, -1, 3, 2,
			}, 4, 4)
			checkSoftmaxPair(e, x, -1)
			checkSoftmaxPair(e, pair{T: x.T.Transpose(0, 1), R: x.R.Transpose(0, 1)}, 0)
		}},
		{name: "nan_propagation", run: func(e *env) {
			x := e.constant(tensor.Float32, []float64{1, nan, -2, 3, nan, 4, 0.5, -1, 2, 7, -3, 0}, 3, 4)
			y := e.randn(4)
			e.expect("Add", tensor.Float32, ref.Add(x.R, y.R), f32, func() *tensor.Tensor { return x.T.Add(y.T) })
			e.expect("Maximum(x, y)", tensor.Float32, ref.Maximum(x.R, y.R), exact, func() *tensor.Tensor { return x.T.Maximum(y.T) })
			e.expect("Maximum(y, x)", tensor.Float32, ref.Maximum(y.R, x.R), exact, func() *tensor.Tensor { return y.T.Maximum(x.T) })
			e.expect("Minimum(y, x)", tensor.Float32, ref.Minimum(y.R, x.R), exact, func() *tensor.Tensor { return y.T.Minimum(x.T) })
			e.expect("Relu", tensor.Float32, ref.Relu(x.R), exact, func() *tensor.Tensor { return x.T.Relu() })
			e.expect("Clamp", tensor.Float32, ref.Clamp(x.R, -1, 1), exact, func() *tensor.Tensor { return x.T.Clamp(-1, 1) })
			e.expect("Sum(1)", tensor.Float32, ref.Sum(x.R, false, 1), sumTol(1e-5, 4, reduceSq(x.R, false, 1)), func() *tensor.Tensor { return x.T.Sum(1) })
			e.expect("Sum()", tensor.Float32, ref.Sum(x.R, false), exact, func() *tensor.Tensor { return x.T.Sum() })
			e.expect("Max(1)", tensor.Float32, ref.Max(x.R, false, 1), exact, func() *tensor.Tensor { return x.T.Max(1) })
			e.expect("Max(0)", tensor.Float32, ref.Max(x.R, false, 0), exact, func() *tensor.Tensor { return x.T.Max(0) })
			e.expect("Min(1)", tensor.Float32, ref.Min(x.R, false, 1), exact, func() *tensor.Tensor { return x.T.Min(1) })
			e.expect("ArgMax(1)", tensor.Int32, ref.ArgMax(x.R, 1), exact, func() *tensor.Tensor { return x.T.ArgMax(1) })
			e.expect("Softmax(1)", tensor.Float32, ref.Softmax(x.R, 1), softmaxTol(4), func() *tensor.Tensor { return x.T.Softmax(1) })
			e.expect("Ne(x, x)", tensor.Bool, ref.Ne(x.R, x.R), exact, func() *tensor.Tensor { return x.T.Ne(x.T) })
			e.expect("IsNaN", tensor.Bool, ref.IsNaN(x.R), exact, func() *tensor.Tensor { return x.T.IsNaN() })
			e.expect("Eq(x, x)", tensor.Bool, ref.Eq(x.R, x.R), exact, func() *tensor.Tensor { return x.T.Eq(x.T) })
		}},
		{name: "relu_gradient_specials", run: func(e *env) {
			// ReLU's gradient, Where(y > 0, g, 0), over several 64-float
			// blocks and a tail, with NaN, ±0 and ±Inf tests and values (the
			// CPU runs it as one op of its fused machine), and x·1, which
			// programs fold to x.
			specials := []float64{nan, 0, math.Copysign(0, -1), inf, -inf, 1, -1, 3, 0.5, -2.5, 7}
			const n = 333
			yv, gv := make([]float64, n), make([]float64, n)
			for i := range n {
				yv[i], gv[i] = specials[i%len(specials)], specials[(i*7+3)%len(specials)]
			}
			y, g := e.constant(tensor.Float32, yv, n), e.constant(tensor.Float32, gv, n)
			zero := ref.Zeros(n)
			pos := ref.Gt(y.R, zero)
			e.expect("Where(y > 0, g, 0)", tensor.Float32, ref.Where(pos, g.R, zero), exact, func() *tensor.Tensor {
				return tensor.Where(y.T.GtScalar(0), g.T, tensor.ZerosLike(g.T))
			})
			e.expect("Where(y > 0, -g, 0)", tensor.Float32, ref.Where(pos, ref.Neg(g.R), zero), exact, func() *tensor.Tensor {
				return tensor.Where(y.T.GtScalar(0), g.T.Neg(), tensor.ZerosLike(g.T))
			})
			e.expect("Where(-y > 0, g, 0) · 3", tensor.Float32, ref.Mul(ref.Where(ref.Gt(ref.Neg(y.R), zero), g.R, zero), ref.Full(3, n)), exact, func() *tensor.Tensor {
				return tensor.Where(y.T.Neg().GtScalar(0), g.T, tensor.ZerosLike(g.T)).MulScalar(3)
			})
			e.expect("Where(g > 0, y, 0) - 1", tensor.Float32, ref.Sub(ref.Where(ref.Gt(g.R, zero), y.R, zero), ref.Full(1, n)), exact, func() *tensor.Tensor {
				return tensor.Where(g.T.GtScalar(0), y.T, tensor.ZerosLike(y.T)).SubScalar(1)
			})
			e.expect("y · 1", tensor.Float32, y.R, exact, func() *tensor.Tensor { return y.T.MulScalar(1) })
			e.expect("(y · 1 + g) · 1", tensor.Float32, ref.Add(y.R, g.R), exact, func() *tensor.Tensor { return y.T.MulScalar(1).Add(g.T).MulScalar(1) })
		}},
		{name: "nan_survives_identities", run: func(e *env) {
			// A shader compiler that assumes no NaN or infinity folds x-x
			// and x+-x to 0 once it sees one value on both sides (lavapipe
			// did, fused and in a lone x-x; NVIDIA's Vulkan driver lost NaN
			// in this case too), and
			// may fold x/x to 1, 0*x to 0 and x<=x to true: each is wrong
			// for some of these x.
			x := e.constant(tensor.Float32, []float64{nan, 1, inf, -inf, -2, 0}, 6)
			a := e.constant(tensor.Float32, []float64{3, 3, 3, 3, 3, 3}, 6)
			z := e.constant(tensor.Float32, []float64{0, 0, 0, 0, 0, 0}, 6)
			xa := ref.Mul(x.R, a.R)
			e.expect("x*a - x*a", tensor.Float32, ref.Sub(xa, xa), exact, func() *tensor.Tensor { return x.T.Mul(a.T).Sub(x.T.Mul(a.T)) })
			e.expect("x - x", tensor.Float32, ref.Sub(x.R, x.R), exact, func() *tensor.Tensor { return x.T.Sub(x.T) })
			e.expect("0 * x", tensor.Float32, ref.Mul(z.R, x.R), exact, func() *tensor.Tensor { return z.T.Mul(x.T) })
			e.expect("x * 0 (scalar)", tensor.Float32, ref.Mul(x.R, z.R), exact, func() *tensor.Tensor { return x.T.MulScalar(0) })
			e.expect("x + 0 - x", tensor.Float32, ref.Sub(x.R, x.R), exact, func() *tensor.Tensor { return x.T.AddScalar(0).Sub(x.T) })
			e.expect("x + -x", tensor.Float32, ref.Add(x.R, ref.Neg(x.R)), exact, func() *tensor.Tensor { return x.T.Add(x.T.Neg()) })
			e.expect("x / x", tensor.Float32, ref.Div(x.R, x.R), exact, func() *tensor.Tensor { return x.T.Div(x.T) })
			e.expect("x*a / x*a", tensor.Float32, ref.Div(xa, xa), exact, func() *tensor.Tensor { return x.T.Mul(a.T).Div(x.T.Mul(a.T)) })
			e.expect("x / 0 (scalar)", tensor.Float32, ref.Div(x.R, z.R), exact, func() *tensor.Tensor { return x.T.DivScalar(0) })
			e.expect("(x - x) * a", tensor.Float32, ref.Mul(ref.Sub(x.R, x.R), a.R), exact, func() *tensor.Tensor { return x.T.Sub(x.T).Mul(a.T) })
			e.expect("(a - a) * x", tensor.Float32, ref.Mul(ref.Sub(a.R, a.R), x.R), exact, func() *tensor.Tensor { return a.T.Sub(a.T).Mul(x.T) })
			e.expect("Sum(x - x)", tensor.Float32, ref.Sum(ref.Sub(x.R, x.R), false), exact, func() *tensor.Tensor { return x.T.Sub(x.T).Sum() })
			e.expect("Maximum(x, x)", tensor.Float32, ref.Maximum(x.R, x.R), exact, func() *tensor.Tensor { return x.T.Maximum(x.T) })
			e.expect("Minimum(x, x)", tensor.Float32, ref.Minimum(x.R, x.R), exact, func() *tensor.Tensor { return x.T.Minimum(x.T) })
			e.expect("Eq(x*a, x*a)", tensor.Bool, ref.Eq(xa, xa), exact, func() *tensor.Tensor { return x.T.Mul(a.T).Eq(x.T.Mul(a.T)) })
			e.expect("Ne(x*a, x*a)", tensor.Bool, ref.Ne(xa, xa), exact, func() *tensor.Tensor { return x.T.Mul(a.T).Ne(x.T.Mul(a.T)) })
			e.expect("Le(x, x)", tensor.Bool, ref.Le(x.R, x.R), exact, func() *tensor.Tensor { return x.T.Le(x.T) })
			e.expect("Ge(x, x)", tensor.Bool, ref.Ge(x.R, x.R), exact, func() *tensor.Tensor { return x.T.Ge(x.T) })
			e.expect("Lt(x, x)", tensor.Bool, ref.Lt(x.R, x.R), exact, func() *tensor.Tensor { return x.T.Lt(x.T) })
			e.expect("Gt(x, x)", tensor.Bool, ref.Gt(x.R, x.R), exact, func() *tensor.Tensor { return x.T.Gt(x.T) })
		}},
		{name: "ieee_specials", run: func(e *env) {
			x := e.constant(tensor.Float32, []float64{0, -1, 1, 100, -100, inf, -inf, 1e-30}, 8)
			finite := pair{T: x.T.Narrow(0, 0, 5), R: x.R.Narrow(0, 0, 5)}
			zero := e.constant(tensor.Float32, []float64{0}, 1)
			e.expect("Div by zero", tensor.Float32, ref.Div(x.R, zero.R), exact, func() *tensor.Tensor { return x.T.Div(zero.T) })
			e.expect("Log", tensor.Float32, ref.Log(x.R), f32, func() *tensor.Tensor { return x.T.Log() })
			e.expect("Sqrt", tensor.Float32, ref.Sqrt(x.R), f32, func() *tensor.Tensor { return x.T.Sqrt() })
			e.expect("Exp", tensor.Float32, ref.Map(x.R, func(v float64) float64 { return ref.RoundFloat32(math.Exp(v)) }), f32, func() *tensor.Tensor { return x.T.Exp() })
			for i, u := range pickUnary("tanh", "sigmoid", "relu", "gelu", "gelu_tanh", "silu") {
				e.expect(u.name+" at ±100", tensor.Float32, u.ref(finite.R), f32, func() *tensor.Tensor { return u.dev(finite.T) })
				if i < 3 { // tanh, sigmoid and relu are defined at ±inf too
					e.expect(u.name+" at ±inf", tensor.Float32, u.ref(x.R), f32, func() *tensor.Tensor { return u.dev(x.T) })
				}
			}
		}},
		{name: "empty", run: func(e *env) {
			x := e.input(tensor.Float32, normal, contiguous, 3, 0)
			e.expect("Sum(1) of [3 0]", tensor.Float32, ref.Sum(x.R, false, 1), exact, func() *tensor.Tensor { return x.T.Sum(1) })
			e.expect("Sum() of [3 0]", tensor.Float32, ref.Scalar(0), exact, func() *tensor.Tensor { return x.T.Sum() })
			e.expect("Max(0) of [3 0]", tensor.Float32, ref.Max(x.R, false, 0), exact, func() *tensor.Tensor { return x.T.Max(0) })
			y := e.randn(0)
			e.expect("Sum of [0]", tensor.Float32, ref.Scalar(0), exact, func() *tensor.Tensor { return y.T.Sum() })
			z := e.randn(4)
			e.expect("Add [3 0]+[1 0]", tensor.Float32, ref.Add(x.R, z.R.Narrow(0, 0, 0).Unsqueeze(0)), exact, func() *tensor.Tensor {
				return x.T.Add(z.T.Narrow(0, 0, 0).Unsqueeze(0))
			})
			for _, bad := range []struct {
				name, shape string
				fn          func()
			}{
				{"Max", "[3 0]", func() { x.T.Max(1).Realize() }},
				{"Max", "[0]", func() { y.T.Max().Realize() }},
				{"Min", "[3 0]", func() { x.T.Min(1).Realize() }},
				{"ArgMax", "[3 0]", func() { x.T.ArgMax(1).Realize() }},
			} {
				expectUsage(e, bad.name+" over an empty axis", bad.fn, bad.name, bad.shape)
			}
		}},
	}
}

// checkSoftmaxPair checks Softmax and LogSoftmax of x along axis.
func checkSoftmaxPair(e *env, x pair, axis int) {
	e.t.Helper()
	n := x.R.Shape()[(axis+x.R.Dim())%x.R.Dim()]
	e.expect("Softmax", tensor.Float32, ref.Softmax(x.R, axis), softmaxTol(n), func() *tensor.Tensor { return x.T.Softmax(axis) })
	e.expect("LogSoftmax", tensor.Float32, ref.LogSoftmax(x.R, axis), softmaxTol(n), func() *tensor.Tensor { return x.T.LogSoftmax(axis) })
}
