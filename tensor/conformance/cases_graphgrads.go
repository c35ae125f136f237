package conformance

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// Gradients of random programs: like the random graphs (cases_graphs.go),
// but of smooth ops only (no kinks, so that central differences of the
// float64 reference are the gradient), over small inputs that all require
// a gradient, checked by checkGrad. They exercise what the gradient rules
// build together: sums over broadcast dimensions, gradients through views,
// products' gradients with transposed operands, a value used twice, and
// their fusion.

// graphGradCases is how many random differentiable programs the suite
// draws on the CPU; other backends draw the first graphGradCasesGPU.
const (
	graphGradCases    = 24
	graphGradCasesGPU = 8
)

// graphGradDims are the sizes of the programs' dimensions: small, since
// central differences evaluate the program twice per input element.
var graphGradDims = []int{1, 2, 3, 4, 5, 7, 8, 9}

// gstep is one op of a differentiable program over the values before it.
type gstep struct {
	desc  string
	reads []int // the values it reads
	dev   func(v []*tensor.Tensor) *tensor.Tensor
	ref   func(v []*ref.Array) *ref.Array
}

// randomGradCases lists the random differentiable programs' cases.
func randomGradCases() []testCase {
	cases := make([]testCase, graphGradCases)
	for i := range cases {
		cases[i] = testCase{name: fmt.Sprintf("graph_grad_%02d", i), run: func(e *env) {
			skipPastShare(e, i, graphGradCases, graphGradCasesGPU)
			op, log := randomGradProgram(e)
			checkGrad(e, op)
			if e.t.Failed() {
				e.t.Logf("program:\n%s", strings.Join(log, "\n"))
			}
		}}
	}
	return cases
}

// randomGradProgram draws a program and returns it as a gradOp, with a
// description of each value.
func randomGradProgram(e *env) (gradOp, []string) {
	rank := 1 + e.rng.IntN(3)
	base := make([]int, rank)
	for i := range base {
		base[i] = graphGradDims[e.rng.IntN(len(graphGradDims))]
	}
	var ins []gradIn
	var shapes [][]int
	var log []string
	// order lists the values in the order they are made: an input's index
	// in ins (weights come among the steps), or -1 for a step's result.
	var order []int
	for i := range 1 + e.rng.IntN(2) {
		shape := broadcastInputShape(e, base, i)
		g := in(shape...)
		if l := []layout{contiguous, transposed, strided}[e.rng.IntN(3)]; l.ok(shape) {
			g = g.laid(l)
		}
		order = append(order, len(ins))
		ins = append(ins, g)
		shapes = append(shapes, shape)
		log = append(log, fmt.Sprintf("v%d: input %v %s", i, shape, g.l.name))
	}
	var steps []gstep
	for range 3 + e.rng.IntN(5) {
		s, w, ok := gradStep(e, shapes)
		if !ok {
			continue
		}
		if w != nil { // a new weight input, the value before the step's
			order = append(order, len(ins))
			ins = append(ins, in(w...))
			shapes = append(shapes, w)
			log = append(log, fmt.Sprintf("v%d: input %v (weight)", len(shapes)-1, w))
		}
		steps = append(steps, s)
		order = append(order, -1)
		shapes = append(shapes, shapeOf(s, shapes))
		log = append(log, fmt.Sprintf("v%d: %s %v", len(shapes)-1, s.desc, shapes[len(shapes)-1]))
	}
	// Only the inputs the result depends on get a gradient.
	uses := make([]map[int]bool, len(order))
	si := 0
	for v, o := range order {
		uses[v] = map[int]bool{}
		if o >= 0 {
			uses[v][o] = true
			continue
		}
		for _, r := range steps[si].reads {
			for i := range uses[r] {
				uses[v][i] = true
			}
		}
		si++
	}
	for i := range ins {
		ins[i].grad = uses[len(order)-1][i]
	}
	// run evaluates the program on the device (ts) or in the reference
	// (rs), whichever is not nil, and returns every value.
	run := func(ts []*tensor.Tensor, rs []*ref.Array) ([]*tensor.Tensor, []*ref.Array) {
		vt, vr := make([]*tensor.Tensor, 0, len(order)), make([]*ref.Array, 0, len(order))
		si := 0
		for _, o := range order {
			switch {
			case o >= 0 && ts != nil:
				vt = append(vt, ts[o])
			case o >= 0:
				vr = append(vr, rs[o])
			case ts != nil:
				vt = append(vt, steps[si].dev(vt))
				si++
			default:
				vr = append(vr, steps[si].ref(vr))
				si++
			}
		}
		return vt, vr
	}
	op := gradOp{
		name: "graph",
		ins:  ins,
		dev: func(x []*tensor.Tensor) *tensor.Tensor {
			v, _ := run(x, nil)
			return v[len(v)-1]
		},
		ref: func(x []*ref.Array) *ref.Array {
			_, v := run(nil, x)
			return v[len(v)-1]
		},
	}
	return op, log
}

// shapeOf evaluates step s on zero arrays of the given shapes to learn its
// result's shape.
func shapeOf(s gstep, shapes [][]int) []int {
	zs := make([]*ref.Array, len(shapes))
	for i, sh := range shapes {
		zs[i] = ref.Zeros(sh...)
	}
	return s.ref(zs).Shape()
}

// gradStep draws one smooth op over the values of the given shapes; w is
// the shape of a new weight input it reads (a product), else nil.
func gradStep(e *env, shapes [][]int) (s gstep, w []int, ok bool) {
	a := e.rng.IntN(len(shapes))
	sa := shapes[a]
	name := fmt.Sprintf("v%d", a)
	switch k := e.rng.IntN(12); {
	case k < 4:
		c := []float64{0.5, 2, -1.5}[e.rng.IntN(3)]
		type unary struct {
			name string
			dev  func(*tensor.Tensor) *tensor.Tensor
			ref  func(*ref.Array) *ref.Array
		}
		ops := []unary{
			{"neg", (*tensor.Tensor).Neg, ref.Neg},
			{"tanh", (*tensor.Tensor).Tanh, ref.Tanh},
			{"sigmoid", (*tensor.Tensor).Sigmoid, ref.Sigmoid},
			{fmt.Sprintf("mul %g", c), func(t *tensor.Tensor) *tensor.Tensor { return t.MulScalar(c) },
				func(r *ref.Array) *ref.Array { return ref.Map(r, func(x float64) float64 { return c * x }) }},
			{"sqrt(x²+1)", func(t *tensor.Tensor) *tensor.Tensor { return t.Mul(t).AddScalar(1).Sqrt() },
				func(r *ref.Array) *ref.Array {
					return ref.Map(r, func(x float64) float64 { return math.Sqrt(x*x + 1) })
				}},
		}
		op := ops[e.rng.IntN(len(ops))]
		return gstep{desc: fmt.Sprintf("%s(%s)", op.name, name), reads: []int{a},
			dev: func(v []*tensor.Tensor) *tensor.Tensor { return op.dev(v[a]) },
			ref: func(v []*ref.Array) *ref.Array { return op.ref(v[a]) }}, nil, true
	case k < 7:
		b := e.rng.IntN(len(shapes))
		if _, err := tensor.BroadcastShapes(sa, shapes[b]); err != nil {
			return gstep{}, nil, false
		}
		ops := []struct {
			name string
			dev  func(x, y *tensor.Tensor) *tensor.Tensor
			ref  func(x, y *ref.Array) *ref.Array
		}{{"add", (*tensor.Tensor).Add, ref.Add}, {"sub", (*tensor.Tensor).Sub, ref.Sub}, {"mul", (*tensor.Tensor).Mul, ref.Mul}}
		op := ops[e.rng.IntN(len(ops))]
		return gstep{desc: fmt.Sprintf("%s(%s, v%d)", op.name, name, b), reads: []int{a, b},
			dev: func(v []*tensor.Tensor) *tensor.Tensor { return op.dev(v[a], v[b]) },
			ref: func(v []*ref.Array) *ref.Array { return op.ref(v[a], v[b]) }}, nil, true
	case k < 9:
		return gradView(e, a, sa)
	case k == 9:
		if len(sa) < 2 {
			return gstep{}, nil, false
		}
		d, keep := e.rng.IntN(len(sa)), e.rng.IntN(2) == 0
		return gstep{desc: fmt.Sprintf("sum(%s, dim %d, keep %v)", name, d, keep), reads: []int{a},
			dev: func(v []*tensor.Tensor) *tensor.Tensor {
				if keep {
					return v[a].SumKeepDim(d)
				}
				return v[a].Sum(d)
			},
			ref: func(v []*ref.Array) *ref.Array { return ref.Sum(v[a], keep, d) }}, nil, true
	case k == 10:
		// The weight is a new input, which the caller makes the value
		// just before this step's.
		kk, n := sa[len(sa)-1], graphGradDims[e.rng.IntN(len(graphGradDims))]
		wi := len(shapes) // the weight's value index once appended
		return gstep{desc: fmt.Sprintf("matmul(%s, v%d)", name, wi), reads: []int{a, wi},
			dev: func(v []*tensor.Tensor) *tensor.Tensor { return v[a].MatMul(v[wi]) },
			ref: func(v []*ref.Array) *ref.Array { return ref.MatMul(v[a], v[wi]) }}, []int{kk, n}, true
	default:
		last := len(sa) - 1
		return gstep{desc: fmt.Sprintf("softmax(%s, last dim)", name), reads: []int{a},
			dev: func(v []*tensor.Tensor) *tensor.Tensor { return v[a].Softmax(last) },
			ref: func(v []*ref.Array) *ref.Array { return ref.Softmax(v[a], last) }}, nil, true
	}
}

// gradView draws a view of value a (shape sa).
func gradView(e *env, a int, sa []int) (gstep, []int, bool) {
	rank := len(sa)
	name := fmt.Sprintf("v%d", a)
	switch e.rng.IntN(3) {
	case 0:
		if rank < 2 {
			return gstep{}, nil, false
		}
		i, j := e.rng.IntN(rank), e.rng.IntN(rank)
		return gstep{desc: fmt.Sprintf("transpose(%s, %d, %d)", name, i, j), reads: []int{a},
			dev: func(v []*tensor.Tensor) *tensor.Tensor { return v[a].Transpose(i, j) },
			ref: func(v []*ref.Array) *ref.Array { return v[a].Transpose(i, j) }}, nil, true
	case 1:
		d := e.rng.IntN(rank)
		if sa[d] < 3 {
			return gstep{}, nil, false
		}
		start, end := e.rng.IntN(2), sa[d]
		return gstep{desc: fmt.Sprintf("slice(%s, dim %d, from %d, step 2)", name, d, start), reads: []int{a},
			dev: func(v []*tensor.Tensor) *tensor.Tensor { return v[a].Slice(d, start, end, 2) },
			ref: func(v []*ref.Array) *ref.Array { return v[a].Slice(d, start, end, 2) }}, nil, true
	default:
		if rank >= 3 {
			return gstep{}, nil, false
		}
		d := e.rng.IntN(rank + 1)
		to := slices.Insert(slices.Clone(sa), d, 3)
		return gstep{desc: fmt.Sprintf("expand(%s, new dim %d of 3)", name, d), reads: []int{a},
			dev: func(v []*tensor.Tensor) *tensor.Tensor { return v[a].Unsqueeze(d).Expand(to...) },
			ref: func(v []*ref.Array) *ref.Array { return v[a].Unsqueeze(d).Expand(to...) }}, nil, true
	}
}
