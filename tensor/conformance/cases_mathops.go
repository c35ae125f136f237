package conformance

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// The elementwise math functions and torch.nn.functional activations of
// tensor's mathops.go, mathtests.go and activation_nn.go, as opRows.

// mapRef lifts a float64 function to a one-input reference.
func mapRef(f func(float64) float64) func(*ref.Array) *ref.Array {
	return func(a *ref.Array) *ref.Array { return ref.Map(a, f) }
}

// relOnly bounds a result by its own magnitude alone, for values near zero
// whose relative accuracy is the point (log1p, expm1, sinh).
func relOnly(rel float64) func([]*ref.Array, *ref.Array) tol {
	return func([]*ref.Array, *ref.Array) tol { return tol{rel: rel, abs: 1e-30} }
}

// withSpecials draws NaN, ±Inf and g's values, each special about one time
// in eight.
func withSpecials(g gen) gen {
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	return func(r *rand.Rand) float64 {
		if k := r.IntN(8); k < len(specials) {
			return specials[k]
		}
		return g(r)
	}
}

// halves draws multiples of 1/2 in [-4, 4]: ties of round.
var halves = func(r *rand.Rand) float64 { return float64(r.IntN(17)-8) / 2 }

func mathUnaryRows() []opRow {
	f32Tol := relTol(1e-5)
	u := func(name string, x gradIn, dev func(*tensor.Tensor) *tensor.Tensor, f func(float64) float64) opRow {
		return unary(name, x, dev, mapRef(f)).within(f32Tol).differentiable()
	}
	small := scaled(1e-4)
	return []opRow{
		u("log1p", in(3, 5).from(uniform(-0.9, 4)), (*tensor.Tensor).Log1p, math.Log1p),
		u("log1p(small)", in(3, 5).from(small), (*tensor.Tensor).Log1p, math.Log1p).within(relOnly(1e-5)),
		u("expm1", in(3, 5).from(scaled(3)), (*tensor.Tensor).Expm1, math.Expm1),
		u("expm1(small)", in(3, 5).from(small), (*tensor.Tensor).Expm1, math.Expm1).within(relOnly(1e-5)),
		u("log2", in(3, 5).positive(), (*tensor.Tensor).Log2, math.Log2),
		u("log10", in(3, 5).positive(), (*tensor.Tensor).Log10, math.Log10),
		u("tan", in(3, 5).from(uniform(-1.4, 1.4)), (*tensor.Tensor).Tan, math.Tan),
		u("sinh", in(3, 5).from(scaled(4)), (*tensor.Tensor).Sinh, math.Sinh),
		u("sinh(small)", in(3, 5).from(small), (*tensor.Tensor).Sinh, math.Sinh).within(relOnly(1e-5)),
		// Forward only: the gradient check's weighted sum of values near
		// float32's maximum overflows (its float64 reference does not).
		unary("sinh(large)", in(2, 3).from(uniform(80, 89)), (*tensor.Tensor).Sinh, mapRef(math.Sinh)).within(f32Tol),
		u("sinh(80..84)", in(2, 3).from(uniform(80, 84)), (*tensor.Tensor).Sinh, math.Sinh),
		u("cosh", in(3, 5).from(scaled(4)), (*tensor.Tensor).Cosh, math.Cosh),
		u("atan", in(3, 5).from(scaled(3)), (*tensor.Tensor).Atan, math.Atan),
		u("asin", in(3, 5).from(uniform(-0.95, 0.95)), (*tensor.Tensor).Asin, math.Asin),
		u("acos", in(3, 5).from(uniform(-0.95, 0.95)), (*tensor.Tensor).Acos, math.Acos),
		unary("round", in(3, 5).from(halves), (*tensor.Tensor).Round, mapRef(math.RoundToEven)),
		unary("trunc", in(3, 5).from(scaled(3)), (*tensor.Tensor).Trunc, mapRef(math.Trunc)),
		// Specials: each op's value at NaN, ±Inf and out of its domain.
		unary("asin_acos_atan(specials)", in(4, 6).from(withSpecials(uniform(-1.5, 1.5))), func(t *tensor.Tensor) *tensor.Tensor {
			return tensor.Cat(0, t.Asin(), t.Acos(), t.Atan())
		}, func(a *ref.Array) *ref.Array {
			return ref.Cat(0, ref.Map(a, math.Asin), ref.Map(a, math.Acos), ref.Map(a, math.Atan))
		}).within(f32Tol),
		unary("log1p_expm1_sinh_cosh_log2(specials)", in(4, 6).from(withSpecials(uniform(-1.5, 1.5))), func(t *tensor.Tensor) *tensor.Tensor {
			return tensor.Cat(0, t.Log1p(), t.Expm1(), t.Sinh(), t.Cosh(), t.Log2(), t.Round(), t.Trunc())
		}, func(a *ref.Array) *ref.Array {
			fs := []func(float64) float64{math.Log1p, math.Expm1, math.Sinh, math.Cosh, math.Log2, math.RoundToEven, math.Trunc}
			parts := make([]*ref.Array, len(fs))
			for i, f := range fs {
				parts[i] = ref.Map(a, f)
			}
			return ref.Cat(0, parts...)
		}).within(f32Tol),
	}
}

// fmodRef is C's fmod on float32 values: exact.
func fmodRef(a, b *ref.Array) *ref.Array { return ref.Map2("Fmod", a, b, math.Mod) }

func mathBinaryRows() []opRow {
	f32Tol := relTol(1e-5)
	b := func(name string, x, y gradIn, dev func(a, b *tensor.Tensor) *tensor.Tensor, f func(a, b float64) float64) opRow {
		return opRow{op: binaryGrad(name, x, y, dev, func(a, b *ref.Array) *ref.Array { return ref.Map2(name, a, b, f) }), out: tensor.Float32}
	}
	remainder := func(a, b float64) float64 {
		m := math.Mod(a, b)
		if m != 0 && (m < 0) != (b < 0) {
			m += b
		}
		return m
	}
	specials := withSpecials(scaled(3))
	return []opRow{
		b("atan2", in(3, 5), in(5), (*tensor.Tensor).Atan2, math.Atan2).within(f32Tol).differentiable(),
		b("atan2(specials)", in(4, 6).from(withSpecials(ints(-1, 1))), in(4, 6).from(withSpecials(ints(-1, 1))), (*tensor.Tensor).Atan2, math.Atan2).within(f32Tol),
		b("fmod", in(3, 5).from(scaled(5)), in(3, 1).from(awayFromZero), (*tensor.Tensor).Fmod, math.Mod).differentiable(),
		b("fmod(large)", in(3, 5).from(scaled(1e6)), in(5).from(awayFromZero), (*tensor.Tensor).Fmod, math.Mod),
		b("fmod(specials)", in(4, 6).from(specials), in(4, 6).from(withSpecials(ints(-2, 2))), (*tensor.Tensor).Fmod, math.Mod),
		b("remainder", in(3, 5).from(scaled(5)), in(3, 1).from(awayFromZero), (*tensor.Tensor).Remainder, remainder).within(f32Tol).differentiable(),
		b("remainder(specials)", in(4, 6).from(specials), in(4, 6).from(withSpecials(ints(-2, 2))), (*tensor.Tensor).Remainder, remainder).within(f32Tol),
		b("logical_xor", in(4, 6).from(ints(-1, 1)), in(6).from(ints(0, 1)), (*tensor.Tensor).LogicalXor, func(a, b float64) float64 {
			return b2f((a != 0) != (b != 0))
		}).giving(tensor.Bool),
		b("lerp(0.3)", in(3, 5), in(5), func(a, b *tensor.Tensor) *tensor.Tensor { return a.LerpScalar(b, 0.3) },
			func(a, b float64) float64 { return a + 0.3*(b-a) }).within(f32Tol).differentiable(),
		b("lerp(0.75)", in(3, 5), in(5), func(a, b *tensor.Tensor) *tensor.Tensor { return a.LerpScalar(b, 0.75) },
			func(a, b float64) float64 { return a + 0.75*(b-a) }).within(f32Tol).differentiable(),
		{op: gradOp{"clamp_tensor", []gradIn{in(3, 5), in(5).from(uniform(-1, 0)), in(3, 1).from(uniform(0, 1))},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].ClampTensor(t[1], t[2]) },
			func(a []*ref.Array) *ref.Array {
				return ref.MapN("ClampTensor", func(v []float64) float64 { return min(max(v[0], v[1]), v[2]) }, a...)
			}}, out: tensor.Float32, grad: true},
		b("clamp_tensor(lo)", in(3, 5), in(3, 1), func(a, b *tensor.Tensor) *tensor.Tensor { return a.ClampTensor(b, nil) },
			math.Max).differentiable(),
		b("clamp_tensor(hi)", in(3, 5), in(5), func(a, b *tensor.Tensor) *tensor.Tensor { return a.ClampTensor(nil, b) },
			math.Min).differentiable(),
		b("clamp_tensor(nan)", in(4, 6).from(withSpecials(normal)), in(4, 6).from(withSpecials(normal)), func(a, b *tensor.Tensor) *tensor.Tensor {
			return a.ClampTensor(b, nil)
		}, func(a, b float64) float64 {
			if math.IsNaN(a) || math.IsNaN(b) {
				return math.NaN()
			}
			return max(a, b)
		}),
	}
}

func mathOtherRows() []opRow {
	f32Tol := relTol(1e-5)
	specials := in(4, 6).from(withSpecials(scaled(3)))
	isTest := func(name string, dev func(*tensor.Tensor) *tensor.Tensor, f func(float64) bool) opRow {
		return unary(name, specials, dev, mapRef(func(x float64) float64 { return b2f(f(x)) })).giving(tensor.Bool)
	}
	nanToNum := func(nan, pos, neg float64) func(float64) float64 {
		return func(x float64) float64 {
			switch {
			case math.IsNaN(x):
				return nan
			case math.IsInf(x, 1):
				return pos
			case math.IsInf(x, -1):
				return neg
			}
			return x
		}
	}
	return []opRow{
		isTest("isinf", (*tensor.Tensor).IsInf, func(x float64) bool { return math.IsInf(x, 0) }),
		isTest("isfinite", (*tensor.Tensor).IsFinite, func(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }),
		isTest("logical_not", (*tensor.Tensor).LogicalNot, func(x float64) bool { return x == 0 }),
		unary("nan_to_num(1,2,-3)", specials, func(t *tensor.Tensor) *tensor.Tensor { return t.NanToNum(1, 2, -3) }, mapRef(nanToNum(1, 2, -3))),
		unary("nan_to_num", specials, (*tensor.Tensor).NanToNumDefault, mapRef(nanToNum(0, math.MaxFloat32, -math.MaxFloat32))),
		unary("nan_to_num(grad)", in(3, 5), func(t *tensor.Tensor) *tensor.Tensor { return t.NanToNum(1, 2, -3) }, mapRef(nanToNum(1, 2, -3))).differentiable(),
		unary("clamp_min(0.3)", in(3, 5), func(t *tensor.Tensor) *tensor.Tensor { return t.ClampMin(0.3) },
			mapRef(func(x float64) float64 { return max(x, float64(float32(0.3))) })).differentiable(),
		unary("clamp_max(-0.2)", in(3, 5), func(t *tensor.Tensor) *tensor.Tensor { return t.ClampMax(-0.2) },
			mapRef(func(x float64) float64 { return min(x, float64(float32(-0.2))) })).differentiable(),
		unary("clamp_min_max(specials)", specials, func(t *tensor.Tensor) *tensor.Tensor {
			return tensor.Cat(0, t.ClampMin(0.5), t.ClampMax(0.5))
		}, func(a *ref.Array) *ref.Array {
			return ref.Cat(0, ref.Clamp(a, 0.5, math.Inf(1)), ref.Clamp(a, math.Inf(-1), 0.5))
		}),
		{op: gradOp{"lerp(tensor)", []gradIn{in(3, 5), in(3, 5), in(5).from(uniform(-0.3, 1.3))},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].Lerp(t[1], t[2]) },
			func(a []*ref.Array) *ref.Array {
				return ref.MapN("Lerp", func(v []float64) float64 { return v[0] + v[2]*(v[1]-v[0]) }, a...)
			}}, out: tensor.Float32, tol: f32Tol, grad: true},
	}
}

func activationRows() []opRow {
	f32Tol := relTol(1e-5)
	elu := func(alpha float64) func(float64) float64 {
		return func(x float64) float64 {
			if x > 0 {
				return x
			}
			return alpha * math.Expm1(x)
		}
	}
	const seluAlpha, seluScale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
	hardsigmoid := func(x float64) float64 { return min(max(x+3, 0), 6) / 6 }
	u := func(name string, x gradIn, dev func(*tensor.Tensor) *tensor.Tensor, f func(float64) float64) opRow {
		return unary(name, x, dev, mapRef(f)).within(f32Tol).differentiable()
	}
	rows := []opRow{
		u("leaky_relu(0.1)", in(3, 5).awayFromKinks(), func(t *tensor.Tensor) *tensor.Tensor { return t.LeakyRelu(0.1) },
			func(x float64) float64 { return max(x, 0) + 0.1*min(x, 0) }),
		u("elu(1)", in(3, 5).from(scaled(3)), func(t *tensor.Tensor) *tensor.Tensor { return t.Elu(1) }, elu(1)),
		u("elu(0.5)", in(3, 5).from(scaled(3)), func(t *tensor.Tensor) *tensor.Tensor { return t.Elu(0.5) }, elu(0.5)),
		u("selu", in(3, 5).from(scaled(3)), (*tensor.Tensor).Selu, func(x float64) float64 { return seluScale * elu(seluAlpha)(x) }),
		u("hardsigmoid", in(3, 5).from(scaled(4)), (*tensor.Tensor).Hardsigmoid, hardsigmoid),
		u("hardswish", in(3, 5).from(scaled(4)), (*tensor.Tensor).Hardswish, func(x float64) float64 { return x * hardsigmoid(x) }),
		unary("activations(specials)", in(4, 6).from(withSpecials(scaled(4))), func(t *tensor.Tensor) *tensor.Tensor {
			return tensor.Cat(0, t.LeakyRelu(0.01), t.Elu(1), t.Selu(), t.Hardsigmoid(), t.Hardswish())
		}, func(a *ref.Array) *ref.Array {
			return ref.Cat(0, ref.Map(a, func(x float64) float64 {
				if x > 0 {
					return x
				}
				return 0.01 * x
			}), ref.Map(a, elu(1)), ref.Map(a, func(x float64) float64 { return seluScale * elu(seluAlpha)(x) }),
				ref.Map(a, hardsigmoid), ref.Map(a, func(x float64) float64 { return x * hardsigmoid(x) }))
		}).within(f32Tol),
	}
	for _, g := range []struct {
		shape []int
		axis  int
	}{{[]int{3, 6}, -1}, {[]int{4, 5}, 0}, {[]int{2, 4, 3}, 1}} {
		rows = append(rows, unary(fmt.Sprintf("glu(%d)", g.axis), in(g.shape...), func(t *tensor.Tensor) *tensor.Tensor { return t.Glu(g.axis) },
			func(a *ref.Array) *ref.Array {
				ax := normAxisRef(g.axis, a.Dim())
				n := a.Shape()[ax] / 2
				return ref.Mul(a.Narrow(ax, 0, n), ref.Sigmoid(a.Narrow(ax, n, n)))
			}).within(f32Tol).differentiable())
	}
	return rows
}

// normAxisRef resolves a negative axis against rank.
func normAxisRef(axis, rank int) int {
	if axis < 0 {
		return axis + rank
	}
	return axis
}

func mathOpCases() []testCase {
	rows := append(mathUnaryRows(), mathBinaryRows()...)
	return rowCases(append(rows, mathOtherRows()...))
}

func activationCases() []testCase { return rowCases(activationRows()) }
