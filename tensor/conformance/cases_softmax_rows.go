package conformance

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// softmaxRowLengths are row lengths around the widths a row kernel splits a
// row by (vector lanes, warps, workgroups) and rows longer than one pass of
// a workgroup.
var softmaxRowLengths = []int{1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 1025, 4097}

// softmaxRowCases check softmax and log-softmax along the last axis, which
// backends with a row kernel (device.RowSoftmaxer) run in one pass: every
// row length above, a row of 100 000, more rows than a GPU dispatch
// dimension holds, +Inf in a row, an unrealized elementwise input, and rows
// read through offsets and strides.
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
	add("softmax_rows_70000x3", true, func(e *env) pair { return e.input(tensor.Float32, scaled(3), contiguous, 70_000, 3) })
	cs = append(cs, testCase{name: "softmax_row_plus_inf", run: func(e *env) {
		x := e.constant(tensor.Float32, []float64{
			1, inf, 2, 3, // +Inf: NaN everywhere, like torch
			inf, inf, 0, 0,
			-inf, inf, 1, 1,
			0.5, -inf, 3, 2,
		}, 4, 4)
		checkSoftmaxPair(e, x, -1)
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
		x := e.input(tensor.Float32, scaled(3), contiguous, 4, 5, 6)
		checkSoftmaxPair(e, pair{T: x.T.Transpose(0, 2), R: x.R.Transpose(0, 2)}, -1)
	}})
	return cs
}
