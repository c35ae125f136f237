package conformance

import (
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// normRowCases check layer normalization along the last axis, which
// backends with row kernels (device.RowNormalizer) run in one pass: the row
// lengths of softmaxRowLengths, a row of 100 000, thousands of rows (see
// softmaxRowCases), NaN and ±Inf, constant rows (variance 0, so eps
// alone), a large mean, strided and unrealized inputs, and the gradients of
// rows of several lengths.
func normRowCases() []testCase {
	var cs []testCase
	add := func(name string, large bool, mk func(e *env) pair) {
		cs = append(cs, testCase{name: name, large: large, run: func(e *env) { checkNormRows(e, mk(e), true) }})
	}
	for _, n := range softmaxRowLengths {
		add(fmt.Sprintf("norm_row_%d", n), false, func(e *env) pair { return e.input(tensor.Float32, scaled(3), contiguous, 3, n) })
	}
	add("norm_row_100000", true, func(e *env) pair { return e.input(tensor.Float32, scaled(3), contiguous, 2, 100_000) })
	add("norm_rows_4099x33", false, func(e *env) pair { return e.input(tensor.Float32, scaled(3), contiguous, 4099, 33) })
	// The special rows' means are exact in float32: they keep the tight
	// bound.
	cs = append(cs, testCase{name: "norm_row_special", run: func(e *env) {
		checkNormRows(e, e.constant(tensor.Float32, specialRows(40, []specialRow{
			{[]float64{1, nan, 2, 3}, 0}, // NaN, +Inf or -Inf: a NaN row
			{[]float64{1, inf, 2, 3}, 0},
			{[]float64{-inf, 0, 1, 1}, 1},
			{nil, 2},                           // variance 0: zeros
			{[]float64{1e4 + 1, 1e4 - 1}, 1e4}, // a large mean, exact in float32, and a small variance
		}), 5, 40), false)
	}})
	add("norm_row_of_elementwise", false, func(e *env) pair {
		x := e.input(tensor.Float32, scaled(3), contiguous, 5, 67)
		return pair{T: x.T.MulScalar(0.5).AddScalar(1), R: ref.Map(x.R, func(v float64) float64 { return 0.5*v + 1 })}
	})
	add("norm_row_transposed_3d", false, func(e *env) pair {
		x := e.input(tensor.Float32, scaled(3), contiguous, 40, 5, 3)
		return pair{T: x.T.Transpose(0, 2), R: x.R.Transpose(0, 2)}
	})
	cs = append(cs, rowGradCases("norm", checkNormRowGrad)...)
	return cs
}

// normRowEps is the epsilon of the row normalization cases.
const normRowEps = 1e-5

// checkNormRows checks LayerNorm(1) of x without affine parameters, within
// normRowTol when rounded is set (rows of random values, whose float32 mean
// is rounded) and within normTol otherwise.
func checkNormRows(e *env, x pair, rounded bool) {
	e.t.Helper()
	n := x.R.Shape()[x.R.Dim()-1]
	t := normTol(n)
	if rounded {
		t = normRowTol(x.R, n)
	}
	e.expect("LayerNorm", tensor.Float32, ref.LayerNorm(x.R, 1, nil, nil, normRowEps), t, func() *tensor.Tensor {
		return x.T.LayerNorm(1, nil, nil, normRowEps)
	})
}

// normRowTol is normTol(n) widened for rows whose spread is small against
// their values: a float32 mean is off by up to a rounding of the row's
// largest magnitude, which the normalization multiplies by 1/sqrt(var+eps).
// A row of two values 0.005 apart near 3, with eps 1e-5, is off by about
// 4e-5 that way, beyond normTol.
func normRowTol(x *ref.Array, n int) tol {
	t := normTol(n)
	d := ref.Sub(x, ref.Mean(x, true, -1))
	rstd := ref.Map(ref.Mean(ref.Mul(d, d), true, -1), func(v float64) float64 { return 1 / math.Sqrt(v+normRowEps) })
	mag := ref.Max(ref.Abs(x), true, -1)
	const u = 0x1p-24 // float32's unit roundoff
	t.scale = ref.Map(ref.Mul(mag, rstd), func(v float64) float64 { return 4 * u * v / t.rel })
	return t
}

// checkNormRowGrad checks the gradient of LayerNorm(1) of x for the output
// gradient g against its closed form rstd·(g − mean(g) − x̂·mean(g·x̂)) in
// float64.
func checkNormRowGrad(e *env, x, g pair) {
	e.t.Helper()
	n := x.R.Shape()[x.R.Dim()-1]
	mean := func(a *ref.Array) *ref.Array { return ref.Mean(a, true, -1) }
	d := ref.Sub(x.R, mean(x.R))
	rstd := ref.Map(mean(ref.Mul(d, d)), func(v float64) float64 { return 1 / math.Sqrt(v+normRowEps) })
	xh := ref.Mul(d, rstd)
	want := ref.Mul(ref.Sub(ref.Sub(g.R, mean(g.R)), ref.Mul(xh, mean(ref.Mul(g.R, xh)))), rstd)
	e.expect("LayerNorm gradient", tensor.Float32, want, normTol(n), func() *tensor.Tensor {
		xt := x.T.Detach().SetRequiresGrad(true)
		if err := xt.LayerNorm(1, nil, nil, normRowEps).BackwardWith(g.T); err != nil {
			e.t.Fatal(err)
		}
		return xt.Grad()
	})
}
