package conformance

import (
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// softmaxRowLengths are row lengths around the widths a row kernel splits a
// row by (vector lanes, warps, workgroups), rows longer than one pass of a
// workgroup, and rows too short for the row kernels (the front end's
// threshold is 32).
var softmaxRowLengths = []int{1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 1025, 4097}

// softmaxRowCases check softmax and log-softmax along the last axis, which
// backends with a row kernel (device.RowSoftmaxer) run in one pass: every
// row length above, a row of 100 000, thousands of rows (the backends' own
// kernel tests cross the GPU grid's limits, which the suite's sizes would
// make slow through the CUDA double), special values, an unrealized
// elementwise input, rows read through offsets and strides, and the
// gradients of rows of several lengths.
func softmaxRowCases() []testCase {
	var cs []testCase
	add := func(name string, large bool, mk func(e *env) pair) {
		cs = append(cs, testCase{name: name, large: large, run: func(e *env) {
			checkSoftmaxPair(e, mk(e), -1)
		}})
	}
	for _, n := range softmaxRowLengths {
		add(fmt.Sprintf("softmax_row_%d", n), false, func(e *env) pair { return e.input(tensor.Float32, scaled(3), contiguous, 3, n) })
	}
	add("softmax_row_100000", true, func(e *env) pair { return e.input(tensor.Float32, scaled(3), contiguous, 2, 100_000) })
	add("softmax_rows_4099x33", false, func(e *env) pair { return e.input(tensor.Float32, scaled(3), contiguous, 4099, 33) })
	cs = append(cs, testCase{name: "softmax_row_special", run: func(e *env) {
		checkSoftmaxPair(e, e.constant(tensor.Float32, specialRows(40, []specialRow{
			{[]float64{1, inf, 2, 3}, 0.5}, // +Inf: NaN everywhere, like torch
			{[]float64{inf, inf, 0, 0}, 0},
			{[]float64{-inf, inf, 1, 1}, 1},
			{[]float64{0.5, -inf, 3, 2}, -1}, // -Inf: 0, or -Inf in log-softmax
			{[]float64{-inf}, -inf},          // all -Inf: NaN
			{[]float64{-inf, 0}, -inf},       // one finite element: 1
			{[]float64{2, nan, 1}, 0},
			{[]float64{1e4, -1e4, 0}, 1e4 - 1},
		}), 8, 40), -1)
	}})
	cs = append(cs, testCase{name: "softmax_row_of_elementwise", run: func(e *env) {
		x := e.input(tensor.Float32, scaled(3), contiguous, 5, 67)
		y := pair{T: x.T.MulScalar(0.5).AddScalar(1), R: ref.Map(x.R, func(v float64) float64 { return 0.5*v + 1 })}
		checkSoftmaxPair(e, y, -1)
	}})
	cs = append(cs, testCase{name: "softmax_row_narrowed", run: func(e *env) {
		x := e.input(tensor.Float32, scaled(3), contiguous, 6, 70)
		checkSoftmaxPair(e, pair{T: x.T.Narrow(1, 3, 61), R: x.R.Narrow(1, 3, 61)}, -1)
	}})
	cs = append(cs, testCase{name: "softmax_row_transposed_3d", run: func(e *env) {
		x := e.input(tensor.Float32, scaled(3), contiguous, 40, 5, 3)
		checkSoftmaxPair(e, pair{T: x.T.Transpose(0, 2), R: x.R.Transpose(0, 2)}, -1)
	}})
	cs = append(cs, rowGradCases("softmax", checkSoftmaxRowGrads)...)
	return cs
}

// specialRow is a row of a special-value case: head, then pad to the row's
// length.
type specialRow struct {
	head []float64
	pad  float64
}

// specialRows returns the values of rows of length n.
func specialRows(n int, rows []specialRow) []float64 {
	var vals []float64
	for _, r := range rows {
		for j := range n {
			v := r.pad
			if j < len(r.head) {
				v = r.head[j]
			}
			vals = append(vals, v)
		}
	}
	return vals
}

// rowGradCases are the gradient cases of a row operation named prefix:
// rows of several lengths and transposed rows, which check checks for the
// input x and the output gradient g.
func rowGradCases(prefix string, check func(e *env, x, g pair)) []testCase {
	var cs []testCase
	for _, n := range []int{1, 33, 65, 257, 1000, 4097} {
		cs = append(cs, testCase{name: fmt.Sprintf("%s_row_grad_%d", prefix, n), run: func(e *env) {
			check(e, e.input(tensor.Float32, scaled(3), contiguous, 3, n), e.randn(3, n))
		}})
	}
	return append(cs, testCase{name: prefix + "_row_grad_transposed", run: func(e *env) {
		x, g := e.input(tensor.Float32, scaled(3), contiguous, 40, 3), e.randn(40, 3)
		tr := func(p pair) pair { return pair{T: p.T.Transpose(0, 1), R: p.R.Transpose(0, 1)} }
		check(e, tr(x), tr(g))
	}})
}

// checkSoftmaxRowGrads checks the gradients of Softmax(-1) and
// LogSoftmax(-1) of x for the output gradient g against their closed forms,
// y·(g − Σ g·y) and g − softmax(x)·Σ g, in float64.
func checkSoftmaxRowGrads(e *env, x, g pair) {
	e.t.Helper()
	n := x.R.Shape()[x.R.Dim()-1]
	y := ref.Softmax(x.R, -1)
	grad := func(f func(*tensor.Tensor) *tensor.Tensor) func() *tensor.Tensor {
		return func() *tensor.Tensor {
			xt := x.T.Detach().SetRequiresGrad(true)
			if err := f(xt).BackwardWith(g.T); err != nil {
				e.t.Fatal(err)
			}
			return xt.Grad()
		}
	}
	want := ref.Mul(y, ref.Sub(g.R, ref.Sum(ref.Mul(g.R, y), true, -1)))
	e.expect("Softmax gradient", tensor.Float32, want, tol{rel: 1e-5 * math.Sqrt(float64(n)), abs: 1e-6 * math.Sqrt(float64(n))},
		grad(func(t *tensor.Tensor) *tensor.Tensor { return t.Softmax(-1) }))
	want = ref.Sub(g.R, ref.Mul(y, ref.Sum(g.R, true, -1)))
	e.expect("LogSoftmax gradient", tensor.Float32, want, tol{rel: 1e-5 * math.Sqrt(float64(n)), abs: 1e-6 * float64(n)},
		grad(func(t *tensor.Tensor) *tensor.Tensor { return t.LogSoftmax(-1) }))
}
