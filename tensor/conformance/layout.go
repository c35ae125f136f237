package conformance

import (
	"slices"
	"strconv"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// layout describes how an input of a given logical shape is laid out in
// memory: contiguous, or a non-contiguous view (transposed, sliced with a
// step, expanded) of a buffer of another shape. The same view is applied to
// the device tensor and to its reference.
type layout struct {
	name string
	ok   func(shape []int) bool                             // whether the layout exists for shape
	base func(shape []int) []int                            // the buffer's shape
	view func(x *tensor.Tensor, shape []int) *tensor.Tensor // the view of the buffer
	ref  func(a *ref.Array, shape []int) *ref.Array
}

var contiguous = layout{
	name: "contiguous",
	ok:   func([]int) bool { return true },
	base: slices.Clone[[]int],
	view: func(x *tensor.Tensor, _ []int) *tensor.Tensor { return x },
	ref:  func(a *ref.Array, _ []int) *ref.Array { return a },
}

// transposed stores the last two dimensions swapped.
var transposed = layout{
	name: "transposed",
	ok:   func(s []int) bool { return len(s) >= 2 },
	base: func(s []int) []int {
		b := slices.Clone(s)
		b[len(b)-1], b[len(b)-2] = b[len(b)-2], b[len(b)-1]
		return b
	},
	view: func(x *tensor.Tensor, _ []int) *tensor.Tensor { return x.Transpose(-1, -2) },
	ref:  func(a *ref.Array, _ []int) *ref.Array { return a.Transpose(-1, -2) },
}

// strided takes every other element of the last dimension, from offset 1.
var strided = layout{
	name: "strided",
	ok:   func(s []int) bool { return len(s) >= 1 },
	base: func(s []int) []int {
		b := slices.Clone(s)
		b[len(b)-1] = 2*b[len(b)-1] + 1
		return b
	},
	view: func(x *tensor.Tensor, s []int) *tensor.Tensor { return x.Slice(-1, 1, 2*s[len(s)-1]+1, 2) },
	ref:  func(a *ref.Array, s []int) *ref.Array { return a.Slice(-1, 1, 2*s[len(s)-1]+1, 2) },
}

// expanded broadcasts the first dimension larger than one from size one
// (stride zero).
var expanded = layout{
	name: "expanded",
	ok:   func(s []int) bool { return slices.IndexFunc(s, func(n int) bool { return n > 1 }) >= 0 },
	base: func(s []int) []int {
		b := slices.Clone(s)
		b[slices.IndexFunc(s, func(n int) bool { return n > 1 })] = 1
		return b
	},
	view: func(x *tensor.Tensor, s []int) *tensor.Tensor { return x.Expand(s...) },
	ref:  func(a *ref.Array, s []int) *ref.Array { return a.Expand(s...) },
}

// expandedAt broadcasts dimension axis from size one (stride zero), for the
// kernels that read a window along one dimension (convolution, pooling): a
// zero stride inside an image must read the repeated row, column or plane.
func expandedAt(axis int) layout {
	return layout{
		name: "expanded@" + strconv.Itoa(axis),
		ok:   func(s []int) bool { return axis < len(s) && s[axis] > 1 },
		base: func(s []int) []int {
			b := slices.Clone(s)
			b[axis] = 1
			return b
		},
		view: func(x *tensor.Tensor, s []int) *tensor.Tensor { return x.Expand(s...) },
		ref:  func(a *ref.Array, s []int) *ref.Array { return a.Expand(s...) },
	}
}

// allLayouts are the layouts every op class is fed.
var allLayouts = []layout{contiguous, transposed, strided, expanded}

// layoutsFor returns the layouts that exist for shape.
func layoutsFor(shape []int) []layout {
	var out []layout
	for _, l := range allLayouts {
		if l.ok(shape) {
			out = append(out, l)
		}
	}
	return out
}

func (l layout) baseShape(shape []int) []int { return l.base(shape) }

func (l layout) apply(p pair, shape []int) pair {
	return pair{T: l.view(p.T, shape), R: l.ref(p.R, shape)}
}
