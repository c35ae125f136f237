package conformance

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// unaryOp is a one-input elementwise op with its reference and input domain.
type unaryOp struct {
	name string
	dev  func(*tensor.Tensor) *tensor.Tensor
	ref  func(*ref.Array) *ref.Array
	dom  gen
}

// scaled draws normal values times k.
func scaled(k float64) gen { return func(r *rand.Rand) float64 { return k * r.NormFloat64() } }

func unaryOps() []unaryOp {
	scalar := func(f func(x, s float64) float64, s float64) func(*ref.Array) *ref.Array {
		return func(a *ref.Array) *ref.Array { return ref.Map(a, func(x float64) float64 { return f(x, s) }) }
	}
	return []unaryOp{
		{"neg", (*tensor.Tensor).Neg, ref.Neg, normal},
		{"abs", (*tensor.Tensor).Abs, ref.Abs, normal},
		{"exp", (*tensor.Tensor).Exp, ref.Exp, scaled(3)},
		{"log", (*tensor.Tensor).Log, ref.Log, positive},
		{"sqrt", (*tensor.Tensor).Sqrt, ref.Sqrt, positive},
		{"rsqrt", (*tensor.Tensor).Rsqrt, ref.Rsqrt, positive},
		{"sin", (*tensor.Tensor).Sin, ref.Sin, scaled(3)},
		{"cos", (*tensor.Tensor).Cos, ref.Cos, scaled(3)},
		{"tanh", (*tensor.Tensor).Tanh, ref.Tanh, scaled(3)},
		{"sigmoid", (*tensor.Tensor).Sigmoid, ref.Sigmoid, scaled(5)},
		{"relu", (*tensor.Tensor).Relu, ref.Relu, normal},
		{"gelu", (*tensor.Tensor).Gelu, ref.Gelu, scaled(3)},
		{"gelu_tanh", (*tensor.Tensor).GeluTanh, ref.GeluTanh, scaled(3)},
		{"silu", (*tensor.Tensor).Silu, ref.Silu, scaled(3)},
		{"softplus", (*tensor.Tensor).Softplus, func(a *ref.Array) *ref.Array {
			return ref.Map(a, func(x float64) float64 {
				if x > 40 {
					return x // log1p(e^x) - x is below float64's resolution
				}
				return math.Log1p(math.Exp(x))
			})
		}, scaled(3)},
		{"mish", (*tensor.Tensor).Mish, func(a *ref.Array) *ref.Array {
			return ref.Map(a, func(x float64) float64 { return x * math.Tanh(math.Log1p(math.Exp(x))) })
		}, scaled(3)},
		{"clamp(-0.5,0.7)", func(x *tensor.Tensor) *tensor.Tensor { return x.Clamp(-0.5, 0.7) }, func(a *ref.Array) *ref.Array { return ref.Clamp(a, -0.5, 0.7) }, normal},
		{"add_scalar(2.5)", func(x *tensor.Tensor) *tensor.Tensor { return x.AddScalar(2.5) }, scalar(func(x, s float64) float64 { return x + s }, 2.5), normal},
		{"sub_scalar(-1.25)", func(x *tensor.Tensor) *tensor.Tensor { return x.SubScalar(-1.25) }, scalar(func(x, s float64) float64 { return x - s }, -1.25), normal},
		{"mul_scalar(-3)", func(x *tensor.Tensor) *tensor.Tensor { return x.MulScalar(-3) }, scalar(func(x, s float64) float64 { return x * s }, -3), normal},
		{"div_scalar(7)", func(x *tensor.Tensor) *tensor.Tensor { return x.DivScalar(7) }, scalar(func(x, s float64) float64 { return x / s }, 7), normal},
		{"pow_scalar(2)", func(x *tensor.Tensor) *tensor.Tensor { return x.PowScalar(2) }, scalar(math.Pow, 2), normal},
		{"pow_scalar(3)", func(x *tensor.Tensor) *tensor.Tensor { return x.PowScalar(3) }, scalar(math.Pow, 3), normal},
		{"pow_scalar(0.5)", func(x *tensor.Tensor) *tensor.Tensor { return x.PowScalar(0.5) }, scalar(math.Pow, 0.5), positive},
		{"pow_scalar(-1.5)", func(x *tensor.Tensor) *tensor.Tensor { return x.PowScalar(-1.5) }, scalar(math.Pow, -1.5), positive},
		{"rsub_scalar(1.5)", func(x *tensor.Tensor) *tensor.Tensor { return x.RSubScalar(1.5) }, scalar(func(x, s float64) float64 { return s - x }, 1.5), normal},
		{"reciprocal", (*tensor.Tensor).Reciprocal, ref.Reciprocal, awayFromZero},
		{"erf", (*tensor.Tensor).Erf, ref.Erf, scaled(2)},
		{"floor", (*tensor.Tensor).Floor, ref.Floor, scaled(3)},
		{"ceil", (*tensor.Tensor).Ceil, ref.Ceil, scaled(3)},
		{"sign", (*tensor.Tensor).Sign, ref.Sign, ints(-2, 2)},
	}
}

// pickUnary returns the named unary ops, in the order named.
func pickUnary(names ...string) []unaryOp {
	all := unaryOps()
	var out []unaryOp
	for _, n := range names {
		for _, u := range all {
			if u.name == n {
				out = append(out, u)
			}
		}
	}
	if len(out) != len(names) {
		panic("conformance: unknown unary op in " + strings.Join(names, ","))
	}
	return out
}

// unaryShapes get every unary op on a contiguous input; layoutShapes get it
// on every non-contiguous layout too.
var (
	unaryShapes  = [][]int{{}, {1}, {7}, {3, 5}, {2, 3, 4}, {1, 1, 1, 9}}
	layoutShapes = [][]int{{5, 7}, {2, 3, 4}}
	largeShape   = []int{513, 1027}
)

func unaryCases() []testCase {
	var cs []testCase
	for _, op := range unaryOps() {
		add := func(sh []int, l layout) {
			cs = append(cs, testCase{name: caseName(op.name, "float32", shapeName(sh), l.name), large: isLarge(sh), run: func(e *env) {
				x := e.input(tensor.Float32, op.dom, l, sh...)
				e.expect(op.name, tensor.Float32, op.ref(x.R), f32, func() *tensor.Tensor { return op.dev(x.T) })
			}})
		}
		for _, sh := range unaryShapes {
			add(sh, contiguous)
		}
		for _, sh := range layoutShapes {
			for _, l := range layoutsFor(sh)[1:] {
				add(sh, l)
			}
		}
		switch op.name { // a few large cases: they dominate the run time on emulated GPUs
		case "exp":
			add(largeShape, contiguous)
		case "gelu":
			add(largeShape, transposed)
		}
	}
	return cs
}

// geluGradCases check the GELUs' gradients, which their backward rules
// compute with the gelu_erf_grad and gelu_tanh_grad ops, element by element
// against float64 derivatives (the gradient of sum(gelu(x)) is gelu'(x)),
// on random inputs and at special values: both infinities, NaN, zeros,
// the derivatives' zero near -0.752 and the far tails.
func geluGradCases() []testCase {
	special := []float64{math.Inf(-1), math.Inf(1), math.NaN(), 0, math.Copysign(0, -1),
		-0.7517, -0.7522, -0.75, 0.75, -5, 5, -9, -12, -16, 16, -40, 40, 1e-8, -1e-8}
	var cs []testCase
	for _, op := range []struct {
		name string
		dev  func(*tensor.Tensor) *tensor.Tensor
		ref  func(*ref.Array) *ref.Array
	}{{"gelu", (*tensor.Tensor).Gelu, ref.GeluGrad}, {"gelu_tanh", (*tensor.Tensor).GeluTanh, ref.GeluTanhGrad}} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			tl := f32
			if dt == tensor.Float64 {
				tl = tol{rel: 1e-13, abs: 1e-15}
			}
			grad := func(e *env, x pair) {
				e.expect(op.name+" gradient", dt, op.ref(x.R), tl, func() *tensor.Tensor {
					v := x.T.Detach().SetRequiresGrad(true)
					e.noErr(op.dev(v).Sum().Backward(), "Backward")
					return v.Grad()
				})
			}
			for _, sh := range [][]int{{7}, {3, 5}, {67, 33}} {
				cs = append(cs, testCase{name: caseName(op.name+"_grad", dt.String(), shapeName(sh)), run: func(e *env) {
					if !e.dev.Supports(dt) {
						return
					}
					grad(e, e.input(dt, scaled(3), contiguous, sh...))
				}})
			}
			cs = append(cs, testCase{name: caseName(op.name+"_grad", dt.String(), "special"), run: func(e *env) {
				if !e.dev.Supports(dt) {
					return
				}
				grad(e, e.inputOf(dt, special, contiguous, len(special)))
			}})
		}
	}
	return cs
}

// binaryOp is a two-input elementwise op with its reference and domains.
type binaryOp struct {
	name     string
	dev      func(a, b *tensor.Tensor) *tensor.Tensor
	ref      func(a, b *ref.Array) *ref.Array
	da, db   gen
	tl       tol
	outDType tensor.DType // asInput: the inputs' dtype
}

// asInput marks a result whose dtype is its inputs'.
const asInput tensor.DType = 0

func binaryOps() []binaryOp {
	return []binaryOp{
		{"add", (*tensor.Tensor).Add, ref.Add, normal, normal, f32, asInput},
		{"sub", (*tensor.Tensor).Sub, ref.Sub, normal, normal, f32, asInput},
		{"mul", (*tensor.Tensor).Mul, ref.Mul, normal, normal, f32, asInput},
		{"div", (*tensor.Tensor).Div, ref.Div, normal, awayFromZero, f32, asInput},
		{"pow", (*tensor.Tensor).Pow, ref.Pow, positive, normal, f32, asInput},
		{"maximum", (*tensor.Tensor).Maximum, ref.Maximum, normal, normal, exact, asInput},
		{"minimum", (*tensor.Tensor).Minimum, ref.Minimum, normal, normal, exact, asInput},
	}
}

// binaryShapes are the broadcasting pairs every binary op is checked on.
var binaryShapes = [][2][]int{
	{{}, {}},
	{{7}, {7}},
	{{3, 1, 5}, {4, 1}},
	{{}, {2, 3}},
	{{2, 3}, {}},
	{{1}, {5, 3}},
	{{2, 3, 4}, {3, 1}},
	{{4, 1, 6}, {1, 5, 1}},
}

// layoutPairs are the layout combinations fed to binary ops on two 4x6 inputs.
var layoutPairs = [][2]layout{
	{transposed, contiguous}, {contiguous, strided}, {expanded, transposed}, {strided, strided}, {transposed, transposed},
}

// binaryCasesFor returns the shape and layout cases of one binary op.
func binaryCasesFor(op binaryOp, dt tensor.DType) []testCase {
	return binaryCasesOn(op, dt, binaryShapes, layoutPairs)
}

// binaryCasesOn returns the cases of one binary op on the given broadcasting
// pairs (contiguous) and layout pairs (4x6 operands).
func binaryCasesOn(op binaryOp, dt tensor.DType, shapes [][2][]int, layouts [][2]layout) []testCase {
	var cs []testCase
	add := func(sa, sb []int, la, lb layout) {
		name := caseName(op.name, dt.String(), shapesName(sa, sb), la.name+","+lb.name)
		cs = append(cs, testCase{name: name, large: isLarge(sa, sb), run: func(e *env) {
			a := e.input(dt, op.da, la, sa...)
			b := e.input(dt, op.db, lb, sb...)
			want := op.ref(a.R, b.R)
			out := op.outDType
			if out == asInput {
				out = dt
			}
			e.expect(op.name, out, want, op.tl.forDType(dt), func() *tensor.Tensor { return op.dev(a.T, b.T) })
		}})
	}
	for _, s := range shapes {
		add(s[0], s[1], contiguous, contiguous)
	}
	for _, l := range layouts {
		add([]int{4, 6}, []int{4, 6}, l[0], l[1])
	}
	add([]int{5, 3}, []int{3}, transposed, strided)
	return cs
}

func binaryCases() []testCase {
	var cs []testCase
	for _, op := range binaryOps() {
		cs = append(cs, binaryCasesFor(op, tensor.Float32)...)
	}
	add := binaryOps()[0]
	for _, s := range [][3][]int{{{3, 1, 5}, {4, 1}, {5}}, {{}, {2, 3}, {}}, {{4, 6}, {4, 6}, {4, 6}}} {
		for _, l := range layoutsFor(s[0]) {
			cs = append(cs, testCase{name: caseName("fma", "float32", shapesName(s[0], s[1], s[2]), l.name), run: func(e *env) {
				x, y, z := e.input(tensor.Float32, normal, l, s[0]...), e.randn(s[1]...), e.randn(s[2]...)
				want := ref.Add(ref.Mul(x.R, y.R), z.R)
				e.expect("Fma", tensor.Float32, want, f32.withScale(ref.Abs(ref.Mul(x.R, y.R))), func() *tensor.Tensor { return x.T.Fma(y.T, z.T) })
			}})
		}
	}
	cs = append(cs, testCase{name: caseName("add", "float32", shapesName(largeShape, largeShape[1:]), "contiguous"), large: true, run: func(e *env) {
		a, b := e.randn(largeShape...), e.randn(largeShape[1])
		e.expect("Add", tensor.Float32, ref.Add(a.R, b.R), f32, func() *tensor.Tensor { return add.dev(a.T, b.T) })
	}})
	cs = append(cs, testCase{name: caseName("mul", "float32", shapesName(largeShape, largeShape), "transposed,contiguous"), large: true, run: func(e *env) {
		a, b := e.input(tensor.Float32, normal, transposed, largeShape...), e.randn(largeShape...)
		e.expect("Mul", tensor.Float32, ref.Mul(a.R, b.R), f32, func() *tensor.Tensor { return a.T.Mul(b.T) })
	}})
	return cs
}

// compareOps are the comparisons, which yield Bool.
func compareOps(g gen) []binaryOp {
	return []binaryOp{
		{"eq", (*tensor.Tensor).Eq, ref.Eq, g, g, exact, tensor.Bool},
		{"ne", (*tensor.Tensor).Ne, ref.Ne, g, g, exact, tensor.Bool},
		{"lt", (*tensor.Tensor).Lt, ref.Lt, g, g, exact, tensor.Bool},
		{"le", (*tensor.Tensor).Le, ref.Le, g, g, exact, tensor.Bool},
		{"gt", (*tensor.Tensor).Gt, ref.Gt, g, g, exact, tensor.Bool},
		{"ge", (*tensor.Tensor).Ge, ref.Ge, g, g, exact, tensor.Bool},
	}
}

func compareCases() []testCase {
	var cs []testCase
	// Small integers in float32, so that ties are common.
	for _, op := range compareOps(ints(-2, 2)) {
		cs = append(cs, binaryCasesFor(op, tensor.Float32)...)
	}
	for _, s := range [][3][]int{{{3, 1, 5}, {4, 1}, {}}, {{2, 3}, {2, 3}, {2, 3}}, {{}, {4}, {3, 1}}} {
		for _, l := range []layout{contiguous, transposed, strided} {
			if !l.ok(s[0]) || !l.ok(s[1]) {
				continue
			}
			cs = append(cs, testCase{name: caseName("where", "float32", shapesName(s[0], s[1], s[2]), l.name), run: func(e *env) {
				c := e.input(tensor.Bool, ints(0, 1), l, s[0]...)
				x := e.input(tensor.Float32, normal, l, s[1]...)
				y := e.randn(s[2]...)
				e.expect("Where", tensor.Float32, ref.Where(c.R, x.R, y.R), exact, func() *tensor.Tensor { return tensor.Where(c.T, x.T, y.T) })
			}})
		}
	}
	scalarCmp := []struct {
		name string
		dev  func(*tensor.Tensor) *tensor.Tensor
		ref  func(x, s float64) bool
	}{
		{"eq_scalar(1)", func(x *tensor.Tensor) *tensor.Tensor { return x.EqScalar(1) }, func(x, s float64) bool { return x == s }},
		{"gt_scalar(1)", func(x *tensor.Tensor) *tensor.Tensor { return x.GtScalar(1) }, func(x, s float64) bool { return x > s }},
		{"lt_scalar(1)", func(x *tensor.Tensor) *tensor.Tensor { return x.LtScalar(1) }, func(x, s float64) bool { return x < s }},
	}
	for _, c := range scalarCmp {
		for _, l := range layoutsFor([]int{5, 7}) {
			cs = append(cs, testCase{name: caseName(c.name, "float32", "5x7", l.name), run: func(e *env) {
				x := e.input(tensor.Float32, ints(-1, 3), l, 5, 7)
				want := ref.Map(x.R, func(v float64) float64 { return b2f(c.ref(v, 1)) })
				e.expect(c.name, tensor.Bool, want, exact, func() *tensor.Tensor { return c.dev(x.T) })
			}})
		}
	}
	cs = append(cs, testCase{name: caseName("where(gt)", "float32", "4x6,6"), run: func(e *env) {
		x, y := e.randn(4, 6), e.randn(6)
		want := ref.Where(ref.Gt(x.R, y.R), ref.Exp(x.R), ref.Neg(y.R))
		e.expect("Where(x>y, exp x, -y)", tensor.Float32, want, f32, func() *tensor.Tensor {
			return tensor.Where(x.T.Gt(y.T), x.T.Exp(), y.T.Neg())
		})
	}})
	return cs
}
