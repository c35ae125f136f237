package conformance

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// Random graphs: each case draws a small program of elementwise ops,
// broadcasts, views, reductions, products, softmaxes, convolutions,
// pooling and index selections over a few inputs (some of them
// non-contiguous), realizes or launches (tensor.Launch, no wait)
// intermediates at random points, and compares
// every output with its float64 reference. The single-op cases check each
// op; these check what fusion does with ops together (inlining, reused
// intermediates, views between fused ops, reductions with prologues and
// epilogues), which no fixed list covers. A new suite seed draws new
// programs; a failure names the program.

// graphCases is how many random programs the suite draws on the CPU; other
// backends draw the first graphCasesGPU of them (every new fused program
// is a compile there).
const (
	graphCases    = 48
	graphCasesGPU = 12
)

// unitRoundoff is float32's unit roundoff, 2^-24.
const unitRoundoff = 1.0 / (1 << 24)

// gval is one value of a random program: the device tensor, its float64
// reference and a bound on the float32 computation's absolute error per
// element (first order, see the op table below).
type gval struct {
	t    *tensor.Tensor
	r    *ref.Array
	err  *ref.Array
	name string // v<index>, once the value is in the program
	desc string
}

// randomGraphCases lists the random programs' cases.
func randomGraphCases() []testCase {
	cases := make([]testCase, graphCases)
	for i := range cases {
		cases[i] = testCase{name: fmt.Sprintf("graph_%02d", i), run: func(e *env) {
			skipPastShare(e, i, graphCases, graphCasesGPU)
			runRandomGraph(e)
		}}
	}
	return cases
}

// graphDims are the sizes a random program's dimensions take: small ones,
// odd ones and a few past the vector widths and block sizes of the
// backends.
var graphDims = []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33, 64, 65, 130}

// runRandomGraph draws one program from e.rng, runs it and checks it.
func runRandomGraph(e *env) {
	rank := 1 + e.rng.IntN(4)
	base := make([]int, rank)
	for i := range base {
		base[i] = graphDims[e.rng.IntN(len(graphDims))]
	}
	limit := 1 << 16 // keep programs cheap on every backend
	if e.dev.Info().Backend == "cpu" && e.rng.IntN(4) == 0 {
		limit = 1 << 19 // past the sizes at which the CPU splits work
	}
	for numElements(base) > limit {
		i := e.rng.IntN(rank)
		base[i] = max(1, base[i]/2)
	}
	var vals []gval
	for i := range 2 + e.rng.IntN(2) {
		vals = append(vals, graphInput(e, base, i))
	}
	var log []string
	for _, v := range vals {
		log = append(log, v.desc)
	}
	steps := 4 + e.rng.IntN(9)
	for range steps {
		v, ok := graphStep(e, vals)
		if !ok {
			if v.desc != "" {
				log = append(log, v.desc)
			}
			continue
		}
		v.name = fmt.Sprintf("v%d", len(vals))
		v.desc = v.name + ": " + v.desc
		vals = append(vals, v)
		log = append(log, v.desc)
	}
	// The last value and one other drawn at random are the outputs,
	// realized together (several results of one graph), or launched
	// together and then read.
	outs := []int{len(vals) - 1}
	if o := e.rng.IntN(len(vals)); o != outs[0] {
		outs = append(outs, o)
	}
	ts := make([]*tensor.Tensor, len(outs))
	for i, o := range outs {
		ts[i] = vals[o].t
	}
	if e.rng.IntN(2) == 0 {
		e.noErr(tensor.Launch(ts...), "launching the outputs")
	} else {
		e.noErr(tensor.Realize(ts...), "realizing the outputs")
	}
	for _, o := range outs {
		v := vals[o]
		// The bound is first order: four times it, plus two units of
		// roundoff of the value (bound = rel·(|want| + scale)).
		scale := ref.Map(v.err, func(x float64) float64 { return 2 * x / unitRoundoff })
		if !e.compare(fmt.Sprintf("v%d", o), v.t, tensor.Float32, v.r, tol{rel: 2 * unitRoundoff, abs: 1e-30, scale: scale}) {
			e.t.Logf("program (shapes after each value):\n%s", strings.Join(log, "\n"))
			return
		}
	}
}

// graphInput returns input i of a program over base: base with some
// dimensions set to one (broadcast against the others) or left out in
// front, in one of the layouts.
func graphInput(e *env, base []int, i int) gval {
	shape := broadcastInputShape(e, base, i)
	if i > 0 {
		if drop := e.rng.IntN(len(shape)); e.rng.IntN(3) == 0 {
			shape = shape[drop:]
		}
	}
	ls := []layout{contiguous, contiguous, transposed, strided}
	l := ls[e.rng.IntN(len(ls))]
	if !l.ok(shape) {
		l = contiguous
	}
	p := e.input(tensor.Float32, normal, l, shape...)
	name := fmt.Sprintf("v%d", i)
	return gval{t: p.T, r: p.R, err: ref.Zeros(shape...), name: name, desc: fmt.Sprintf("%s: input %v %s", name, shape, l.name)}
}

// graphStep draws one op over vals; ok is false when the drawn op does not
// apply (no broadcast-compatible pair, a dimension too small) or realizes
// a value instead (described in the result's desc).
func graphStep(e *env, vals []gval) (gval, bool) {
	a := vals[e.rng.IntN(len(vals))]
	switch k := e.rng.IntN(26); {
	case k < 6:
		return graphUnary(e, a), true
	case k < 11:
		b := vals[e.rng.IntN(len(vals))]
		if _, err := tensor.BroadcastShapes(a.r.Shape(), b.r.Shape()); err != nil {
			return gval{}, false
		}
		return graphBinary(e, a, b), true
	case k < 15:
		return graphView(e, a)
	case k < 18:
		return graphReduce(e, a)
	case k < 20:
		if k == 18 { // computed without waiting (Launch): later kernels queue behind it
			e.noErr(a.t.Launch(), "launching an intermediate")
			return gval{desc: "launch " + a.name}, false
		}
		e.noErr(a.t.Realize(), "realizing an intermediate")
		return gval{desc: "realize " + a.name}, false
	case k < 22:
		return graphMatMul(e, a)
	case k == 22:
		return graphSoftmax(e, a)
	case k == 23:
		return graphConv(e, a)
	case k == 24:
		return graphPool(e, a)
	default:
		return graphIndexSelect(e, a)
	}
}

// graphUnary applies a unary op. Each op's error bound: its derivative's
// magnitude times the input's bound, plus a few units of roundoff of the
// result, and for tanh and sigmoid a few of one (WGSL's tanh is accurate
// as (e^2x−1)/(e^2x+1) is, absolutely rather than relatively near zero;
// the single-op cases allow the same).
func graphUnary(e *env, a gval) gval {
	u := unitRoundoff
	type unary struct {
		name  string
		dev   func(*tensor.Tensor) *tensor.Tensor
		f     func(float64) float64
		slope func(float64) float64 // a bound on |f'| near x
		ulps  float64               // units of roundoff of the result
		abs   float64               // units of roundoff absolute: shader tanh is (e^2x−1)/(e^2x+1)
	}
	c := []float64{0.5, 2, -1.5, 3}[e.rng.IntN(4)]
	ops := []unary{
		{"neg", (*tensor.Tensor).Neg, func(x float64) float64 { return -x }, func(float64) float64 { return 1 }, 0, 0},
		{"abs", (*tensor.Tensor).Abs, math.Abs, func(float64) float64 { return 1 }, 0, 0},
		{"relu", (*tensor.Tensor).Relu, func(x float64) float64 { return max(x, 0) }, func(float64) float64 { return 1 }, 0, 0},
		{"tanh", (*tensor.Tensor).Tanh, math.Tanh, func(float64) float64 { return 1 }, 4, 16},
		{"sigmoid", (*tensor.Tensor).Sigmoid, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, func(float64) float64 { return 0.25 }, 4, 16},
		{fmt.Sprintf("mul %g", c), func(t *tensor.Tensor) *tensor.Tensor { return t.MulScalar(c) },
			func(x float64) float64 { return c * x }, func(float64) float64 { return math.Abs(c) }, 1, 0},
		{fmt.Sprintf("add %g", c), func(t *tensor.Tensor) *tensor.Tensor { return t.AddScalar(c) },
			func(x float64) float64 { return x + c }, func(float64) float64 { return 1 }, 1, 0},
		{"sqrt(|x|+1)", func(t *tensor.Tensor) *tensor.Tensor { return t.Abs().AddScalar(1).Sqrt() },
			func(x float64) float64 { return math.Sqrt(math.Abs(x) + 1) }, func(float64) float64 { return 0.5 }, 2, 0},
	}
	op := ops[e.rng.IntN(len(ops))]
	r := ref.Map(a.r, op.f)
	errs := ref.MapN("graph "+op.name, func(v []float64) float64 {
		x, ex := v[0], v[1]
		return op.slope(x)*ex + op.ulps*u*math.Abs(op.f(x)) + op.abs*u
	}, a.r, a.err)
	return gval{t: op.dev(a.t), r: r, err: errs, desc: fmt.Sprintf("%s(%s) %v", op.name, a.name, r.Shape())}
}

// graphBinary applies a broadcasting binary op.
func graphBinary(e *env, a, b gval) gval {
	u := unitRoundoff
	type binary struct {
		name string
		dev  func(x, y *tensor.Tensor) *tensor.Tensor
		f    func(x, y float64) float64
		err  func(x, y, ex, ey float64) float64
	}
	ops := []binary{
		{"add", (*tensor.Tensor).Add, func(x, y float64) float64 { return x + y },
			func(x, y, ex, ey float64) float64 { return ex + ey + u*math.Abs(x+y) }},
		{"sub", (*tensor.Tensor).Sub, func(x, y float64) float64 { return x - y },
			func(x, y, ex, ey float64) float64 { return ex + ey + u*math.Abs(x-y) }},
		{"mul", (*tensor.Tensor).Mul, func(x, y float64) float64 { return x * y },
			func(x, y, ex, ey float64) float64 { return math.Abs(y)*ex + math.Abs(x)*ey + ex*ey + u*math.Abs(x*y) }},
		{"maximum", (*tensor.Tensor).Maximum, math.Max, func(_, _, ex, ey float64) float64 { return max(ex, ey) }},
		{"minimum", (*tensor.Tensor).Minimum, math.Min, func(_, _, ex, ey float64) float64 { return max(ex, ey) }},
	}
	op := ops[e.rng.IntN(len(ops))]
	r := ref.Map2("graph "+op.name, a.r, b.r, op.f)
	errs := ref.MapN("graph "+op.name, func(v []float64) float64 { return op.err(v[0], v[1], v[2], v[3]) }, a.r, b.r, a.err, b.err)
	return gval{t: op.dev(a.t, b.t), r: r, err: errs, desc: fmt.Sprintf("%s(%s, %s) %v", op.name, a.name, b.name, r.Shape())}
}

// graphView applies a view: a transpose, a slice with a step, a narrowing,
// a new dimension expanded, or a flattening reshape. The error bounds take
// the same view.
func graphView(e *env, a gval) (gval, bool) {
	shape := a.r.Shape()
	rank := len(shape)
	var (
		dt   func(*tensor.Tensor) *tensor.Tensor
		dr   func(*ref.Array) *ref.Array
		desc string
	)
	switch e.rng.IntN(5) {
	case 0:
		if rank < 2 {
			return gval{}, false
		}
		i, j := e.rng.IntN(rank), e.rng.IntN(rank)
		dt = func(t *tensor.Tensor) *tensor.Tensor { return t.Transpose(i, j) }
		dr = func(r *ref.Array) *ref.Array { return r.Transpose(i, j) }
		desc = fmt.Sprintf("transpose %d %d", i, j)
	case 1:
		d := e.rng.IntN(rank)
		if shape[d] < 3 {
			return gval{}, false
		}
		start, step := e.rng.IntN(2), 2
		dt = func(t *tensor.Tensor) *tensor.Tensor { return t.Slice(d, start, shape[d], step) }
		dr = func(r *ref.Array) *ref.Array { return r.Slice(d, start, shape[d], step) }
		desc = fmt.Sprintf("slice dim %d from %d step %d", d, start, step)
	case 2:
		d := e.rng.IntN(rank)
		if shape[d] < 2 {
			return gval{}, false
		}
		start := 1 + e.rng.IntN(shape[d]-1)
		n := 1 + e.rng.IntN(shape[d]-start)
		dt = func(t *tensor.Tensor) *tensor.Tensor { return t.Narrow(d, start, n) }
		dr = func(r *ref.Array) *ref.Array { return r.Narrow(d, start, n) }
		desc = fmt.Sprintf("narrow dim %d from %d length %d", d, start, n)
	case 3:
		if rank >= 4 {
			return gval{}, false
		}
		d := e.rng.IntN(rank + 1)
		size := []int{2, 3, 5}[e.rng.IntN(3)]
		to := slices.Insert(slices.Clone(shape), d, size)
		dt = func(t *tensor.Tensor) *tensor.Tensor { return t.Unsqueeze(d).Expand(to...) }
		dr = func(r *ref.Array) *ref.Array { return r.Unsqueeze(d).Expand(to...) }
		desc = fmt.Sprintf("unsqueeze %d, expand to %v", d, to)
	default:
		if rank < 2 {
			return gval{}, false
		}
		d := e.rng.IntN(rank - 1)
		to := slices.Clone(shape[:d])
		to = append(to, shape[d]*shape[d+1])
		to = append(to, shape[d+2:]...)
		dt = func(t *tensor.Tensor) *tensor.Tensor { return t.Reshape(to...) }
		dr = func(r *ref.Array) *ref.Array { return r.Reshape(to...) }
		desc = fmt.Sprintf("reshape to %v", to)
	}
	r := dr(a.r)
	return gval{t: dt(a.t), r: r, err: dr(a.err), desc: fmt.Sprintf("%s(%s) %v", desc, a.name, r.Shape())}, true
}

// graphReduce sums or takes the maximum over one axis, keeping it or not.
// A float32 sum of n terms is within n·u·Σ|x| of the exact one (a loose
// bound: every backend sums in blocks), plus the terms' own bounds.
func graphReduce(e *env, a gval) (gval, bool) {
	shape := a.r.Shape()
	if len(shape) < 2 { // keep at least one dimension
		return gval{}, false
	}
	d := e.rng.IntN(len(shape))
	keep := e.rng.IntN(2) == 0
	n := float64(shape[d])
	var t *tensor.Tensor
	var r, errs *ref.Array
	name := "sum"
	if e.rng.IntN(3) == 0 {
		name = "max"
		t = a.t.Max(d)
		if keep {
			t = t.Unsqueeze(d)
		}
		r, errs = ref.Max(a.r, keep, d), ref.Max(a.err, keep, d)
	} else {
		if keep {
			t = a.t.SumKeepDim(d)
		} else {
			t = a.t.Sum(d)
		}
		r = ref.Sum(a.r, keep, d)
		mag := ref.Sum(ref.Abs(a.r), keep, d)
		errs = ref.MapN("graph sum", func(v []float64) float64 { return v[0] + n*unitRoundoff*v[1] }, ref.Sum(a.err, keep, d), mag)
	}
	return gval{t: t, r: r, err: errs, desc: fmt.Sprintf("%s(%s, dim %d, keep %v) %v", name, a.name, d, keep, r.Shape())}, true
}

// graphMatMul multiplies a by a new input W of shape [a's last size, n]
// (broadcast over a's batch dimensions). Its bound: the product of a's
// bounds with |W|, plus k·u times the product of the magnitudes.
func graphMatMul(e *env, a gval) (gval, bool) {
	shape := a.r.Shape()
	k, n := shape[len(shape)-1], graphDims[e.rng.IntN(len(graphDims))]
	if numElements(shape)*n > 1<<20 { // the float64 references are plain loops
		return gval{}, false
	}
	w := e.randn(k, n)
	r := ref.MatMul(a.r, w.R)
	absW := ref.Abs(w.R)
	errs := ref.MapN("graph matmul", func(v []float64) float64 { return v[0] + float64(k)*unitRoundoff*v[1] },
		ref.MatMul(a.err, absW), ref.MatMul(ref.Abs(a.r), absW))
	return gval{t: a.t.MatMul(w.T), r: r, err: errs, desc: fmt.Sprintf("matmul(%s, W [%d %d]) %v", a.name, k, n, r.Shape())}, true
}

// graphSoftmax takes the softmax along the last dimension. Each output
// s_i moves by at most s_i·(|Δx_i| + max_j |Δx_j|) for input errors Δx, and
// its computation (an exp, a sum of n terms, a division) adds about
// (n + 8)·u·s_i, and a few units absolutely (see graphUnary).
func graphSoftmax(e *env, a gval) (gval, bool) {
	shape := a.r.Shape()
	last := len(shape) - 1
	n := float64(shape[last])
	r := ref.Softmax(a.r, last)
	worst := ref.Max(a.err, true, last)
	errs := ref.MapN("graph softmax", func(v []float64) float64 {
		s, ex, wx := v[0], v[1], v[2]
		return s*(ex+wx) + (n+8)*unitRoundoff*s + 16*unitRoundoff
	}, r, a.err, worst)
	return gval{t: a.t.Softmax(last), r: r, err: errs, desc: fmt.Sprintf("softmax(%s, last dim) %v", a.name, r.Shape())}, true
}

// graphConv convolves a 4-dimensional value, read as [N, C, H, W], with a
// new weight of O×C×3×3 (padding 1, stride 1 or 2). The bound is the
// product's: the convolution of a's bounds with |W|, plus 9C·u times the
// convolution of the magnitudes.
func graphConv(e *env, a gval) (gval, bool) {
	shape := a.r.Shape()
	if len(shape) != 4 {
		return gval{}, false
	}
	c, o := shape[1], []int{1, 3, 8, 17}[e.rng.IntN(4)]
	if numElements(shape)*o*9 > 1<<22 { // the float64 references are plain loops
		return gval{}, false
	}
	stride := 1 + e.rng.IntN(2)
	w := e.randn(o, c, 3, 3)
	ro := ref.ConvOptions{Padding: []int{1}, Stride: []int{stride}}
	r := ref.Conv(a.r, w.R, nil, ro)
	absW := ref.Abs(w.R)
	errs := ref.MapN("graph conv", func(v []float64) float64 { return v[0] + float64(9*c)*unitRoundoff*v[1] },
		ref.Conv(a.err, absW, nil, ro), ref.Conv(ref.Abs(a.r), absW, nil, ro))
	t := a.t.Conv2d(w.T, nil, tensor.ConvOptions{Padding: []int{1}, Stride: []int{stride}})
	return gval{t: t, r: r, err: errs, desc: fmt.Sprintf("conv2d(%s, W [%d %d 3 3], pad 1, stride %d) %v", a.name, o, c, stride, r.Shape())}, true
}

// graphPool takes 2×2 max or average pooling of a 4-dimensional value. A
// maximum is within the largest bound of its window (whichever element
// wins); an average within the average bound plus a few units.
func graphPool(e *env, a gval) (gval, bool) {
	shape := a.r.Shape()
	if len(shape) != 4 || shape[2] < 2 || shape[3] < 2 {
		return gval{}, false
	}
	opt := tensor.PoolOptions{Kernel: []int{2}}
	if e.rng.IntN(2) == 0 {
		r := ref.MaxPool(a.r, refPool(opt))
		return gval{t: a.t.MaxPool2d(opt), r: r, err: ref.MaxPool(a.err, refPool(opt)),
			desc: fmt.Sprintf("max_pool 2x2(%s) %v", a.name, r.Shape())}, true
	}
	r := ref.AvgPool(a.r, refPool(opt))
	errs := ref.MapN("graph avg_pool", func(v []float64) float64 { return v[0] + 4*unitRoundoff*v[1] },
		ref.AvgPool(a.err, refPool(opt)), ref.AvgPool(ref.Abs(a.r), refPool(opt)))
	return gval{t: a.t.AvgPool2d(opt), r: r, err: errs, desc: fmt.Sprintf("avg_pool 2x2(%s) %v", a.name, r.Shape())}, true
}

// graphIndexSelect picks positions along one dimension, with repeats, by a
// new Int32 index: exact, so the bounds are picked the same way.
func graphIndexSelect(e *env, a gval) (gval, bool) {
	shape := a.r.Shape()
	d := e.rng.IntN(len(shape))
	idx := e.input(tensor.Int32, ints(0, shape[d]-1), contiguous, 1+e.rng.IntN(9))
	r := ref.IndexSelect(a.r, d, idx.R)
	return gval{t: a.t.IndexSelect(d, idx.T), r: r, err: ref.IndexSelect(a.err, d, idx.R),
		desc: fmt.Sprintf("index_select(%s, dim %d, %d positions) %v", a.name, d, idx.R.Size(), r.Shape())}, true
}

// skipPastShare skips random case i on backends other than the CPU when it
// is past their share: the CPU runs all n, others the first nOther (each
// new fused program is a compile there).
func skipPastShare(e *env, i, n, nOther int) {
	if i >= nOther && e.dev.Info().Backend != "cpu" {
		e.t.Skipf("the CPU runs %d of these random programs, other backends %d", n, nOther)
	}
}

// broadcastInputShape returns the shape of a random program's input i:
// base for the first, else base with about a third of its dimensions set to
// one, to broadcast against the others.
func broadcastInputShape(e *env, base []int, i int) []int {
	shape := slices.Clone(base)
	if i > 0 {
		for d := range shape {
			if e.rng.IntN(3) == 0 {
				shape[d] = 1
			}
		}
	}
	return shape
}
