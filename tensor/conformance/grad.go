package conformance

import (
	"fmt"
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// Gradients are checked against central differences of the float64
// reference: for a scalar loss L = sum(f(inputs) * r) with fixed random
// weights r, dL/dx[j] ≈ (L(x + h e_j) - L(x - h e_j)) / 2h, evaluated in
// float64 (truncation error O(h²), rounding error O(1e-16/h)), so the
// comparison with the backend's float32 gradient can be much tighter than a
// finite difference of a float32 forward would allow.

// gradIn describes one input of a gradient case.
type gradIn struct {
	shape []int
	g     gen
	dt    tensor.DType
	grad  bool // whether the gradient with respect to it is checked
	l     layout
	// spaced replaces g with env.spaced: values far apart from each other,
	// from zero and from onGrid values, for the ops that pick one of
	// several inputs (max, min, max pooling).
	spaced bool
}

// in is a float32 input from N(0, 1) that requires grad.
func in(shape ...int) gradIn {
	return gradIn{shape: shape, g: normal, dt: tensor.Float32, grad: true, l: contiguous}
}

func (g gradIn) from(gn gen) gradIn        { g.g = gn; return g }
func (g gradIn) laid(l layout) gradIn      { g.l = l; return g }
func (g gradIn) constant() gradIn          { g.grad = false; return g }
func (g gradIn) index(n int) gradIn        { g.dt, g.g, g.grad = tensor.Int32, ints(0, n-1), false; return g }
func (g gradIn) boolean() gradIn           { g.dt, g.g, g.grad = tensor.Bool, ints(0, 1), false; return g }
func (g gradIn) positive() gradIn          { return g.from(positive) }
func (g gradIn) awayFromKinks() gradIn     { return g.from(farFromKinks) }
func (g gradIn) scaledBy(k float64) gradIn { return g.from(scaled(k)) }
func (g gradIn) spacedOut() gradIn         { g.spaced = true; return g }

// gradInput draws the input gi describes.
func (e *env) gradInput(gi gradIn) pair {
	e.t.Helper()
	if gi.spaced {
		return e.inputOf(gi.dt, e.spaced(numElements(gi.l.baseShape(gi.shape))), gi.l, gi.shape...)
	}
	return e.input(gi.dt, gi.g, gi.l, gi.shape...)
}

// gradOp is a differentiable computation of its inputs.
type gradOp struct {
	name string
	ins  []gradIn
	dev  func(x []*tensor.Tensor) *tensor.Tensor
	ref  func(x []*ref.Array) *ref.Array
}

// gradTol bounds a float32 gradient against the float64 difference quotient:
// 1e-3 relative, with an absolute floor of 1e-3 of the largest gradient.
func gradTol(want *ref.Array) tol {
	m := 0.0
	for _, v := range want.Values() {
		m = max(m, math.Abs(v))
	}
	return tol{rel: 1e-3, abs: 1e-3*m + 1e-6}
}

// checkGrad runs op forward and backward on the device and compares every
// checked input's gradient with central differences of the reference.
func checkGrad(e *env, op gradOp) {
	e.t.Helper()
	ps := make([]pair, len(op.ins))
	ts := make([]*tensor.Tensor, len(op.ins))
	rs := make([]*ref.Array, len(op.ins))
	for i, gi := range op.ins {
		ps[i] = e.gradInput(gi)
		if gi.grad {
			ps[i].T.SetRequiresGrad(true)
		}
		ts[i], rs[i] = ps[i].T, ps[i].R
	}
	out := op.ref(rs)
	w := e.randn(out.Shape()...)
	loss := func(rs []*ref.Array) float64 { return ref.Sum(ref.Mul(op.ref(rs), w.R), false).Item() }
	y := op.dev(ts)
	if !slices.Equal(y.Shape(), out.Shape()) {
		e.fatalf("%s: forward shape %v, want %v", op.name, y.Shape(), out.Shape())
	}
	l := y.Mul(w.T).Sum()
	e.compare(op.name+" loss", l, tensor.Float32, ref.Scalar(loss(rs)), sumTol(1e-5, out.Size(), reduceSq(ref.Mul(out, w.R), false)))
	if err := l.Backward(); err != nil {
		e.fatalf("%s: Backward: %v", op.name, err)
	}
	for i, gi := range op.ins {
		if !gi.grad {
			continue
		}
		g := ts[i].Grad()
		if g == nil {
			e.errorf("%s: input %d %v has no gradient after Backward", op.name, i, gi.shape)
			continue
		}
		want := numericGrad(rs, i, loss)
		e.compare(fmt.Sprintf("%s: gradient of input %d %v", op.name, i, gi.shape), g, tensor.Float32, want, gradTol(want))
	}
}

// numericGrad is the central-difference gradient of loss with respect to
// input i.
func numericGrad(rs []*ref.Array, i int, loss func([]*ref.Array) float64) *ref.Array {
	shape := rs[i].Shape()
	base := rs[i].Values()
	args := slices.Clone(rs)
	grad := make([]float64, len(base))
	for j, v := range base {
		h := 1e-6 * max(1, math.Abs(v))
		at := func(x float64) float64 {
			vals := slices.Clone(base)
			vals[j] = x
			args[i] = ref.New(vals, shape...)
			return loss(args)
		}
		grad[j] = (at(v+h) - at(v-h)) / (2 * h)
	}
	return ref.New(grad, shape...)
}

func gradCases() []testCase {
	var cs []testCase
	for _, op := range gradOps() {
		cs = append(cs, testCase{name: op.name, run: func(e *env) { checkGrad(e, op) }})
	}
	return append(append(cs, exactGradCases()...), concurrentGradCase())
}
