package tensor

import (
	"fmt"
	"slices"

	"github.com/shaderflow/shaderflow/internal/checked"
)

// broadcastShapes returns the NumPy broadcast of the shapes or panics naming op.
func broadcastShapes(op string, shapes ...[]int) []int {
	if len(shapes) > 0 && allEqual(shapes) {
		return shapes[0] // shapes are never modified in place, so sharing is safe
	}
	out, err := BroadcastShapes(shapes...)
	if err != nil {
		usage(op, "shapes %v cannot be broadcast together", shapes)
	}
	checkExtent(op, out)
	return out
}

// BroadcastShapes returns the NumPy broadcast of shapes (dimensions aligned
// from the last; each equal or one), or an error when they do not
// broadcast. It does not check that the result's size fits an int.
func BroadcastShapes(shapes ...[]int) ([]int, error) {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make([]int, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for i, v := range s {
			j := rank - len(s) + i
			switch {
			case v == out[j] || v == 1:
			case out[j] == 1:
				out[j] = v
			default:
				return nil, fmt.Errorf("shapes %v do not broadcast", shapes)
			}
		}
	}
	return out, nil
}

// broadcastView expands v (of shape v.shape) to shape, giving broadcast
// dimensions stride 0.
func broadcastView(v view, shape []int) view {
	if slices.Equal(v.shape, shape) {
		return v
	}
	st := make([]int, len(shape))
	pad := len(shape) - len(v.shape)
	for i := range shape {
		if i < pad {
			continue
		}
		if v.shape[i-pad] == shape[i] {
			st[i] = v.strides[i-pad]
		}
	}
	return view{shape: shape, strides: st, offset: v.offset}
}

// MaxElements is the most elements a tensor may have, and the most its
// shape may span counting empty dimensions as one: kernels index elements
// and compute strides with 32-bit signed integers on every backend.
const MaxElements = 1<<31 - 1

// checkShape panics naming op if a dimension is negative or the shape spans
// more than MaxElements (so that no element count, stride or byte size of
// it can overflow), and returns a copy of shape.
func checkShape(op string, shape []int) []int {
	checkExtent(op, shape)
	return slices.Clone(shape)
}

// checkExtent is checkShape without the copy, for shapes the caller built.
func checkExtent(op string, shape []int) {
	for _, s := range shape {
		if s < 0 {
			usage(op, "negative dimension in shape %v", shape)
		}
	}
	if n, ok := checked.Extent(shape...); !ok || n > MaxElements {
		usage(op, "shape %v spans more than %d elements", shape, MaxElements)
	}
}

// convOutSize returns the number of positions of a window of kernel taps
// spaced dilation apart, moved by stride over in elements padded by pad on
// each side, and false when there is no position or the arithmetic would
// overflow (stride and dilation ≥ 1, pad ≥ 0, kernel ≥ 1, in ≥ 0).
func convOutSize(in, kernel, stride, pad, dilation int) (int, bool) {
	if in < 0 || kernel < 1 || stride < 1 || pad < 0 || dilation < 1 {
		return 0, false
	}
	reach, ok := checked.Mul(dilation, kernel-1)
	if !ok {
		return 0, false
	}
	span, ok := checked.Add(reach, 1)
	if !ok {
		return 0, false
	}
	twoPad, ok := checked.Mul(pad, 2)
	if !ok {
		return 0, false
	}
	padded, ok := checked.Add(in, twoPad)
	if !ok || padded < span {
		return 0, false
	}
	return (padded-span)/stride + 1, true
}

// promote returns the result type of combining a and b: bool < int32 <
// bfloat16, float16 < float32 (float16 with bfloat16 gives float32).
func promote(a, b DType) DType {
	if a == b {
		return a
	}
	ra, rb := promoteRank(a), promoteRank(b)
	switch {
	case ra == rb: // uint8 with int8, float16 with bfloat16
		if a.IsFloat() {
			return Float32
		}
		return Int32
	case ra > rb:
		return a
	}
	return b
}

// promoteRank orders the types for promotion: bool, the 8-bit integers,
// int32, int64, the 16-bit floats, float32, float64 (PyTorch's categories;
// within a category the wider type wins).
func promoteRank(t DType) int {
	switch t {
	case Bool:
		return 0
	case Uint8, Int8:
		return 1
	case Int32:
		return 2
	case Int64:
		return 3
	case Float16, BFloat16:
		return 4
	case Float64:
		return 6
	}
	return 5
}

// floatType returns t if it is a float type and Float32 otherwise.
func floatType(t DType) DType {
	if t.IsFloat() {
		return t
	}
	return Float32
}

func allEqual(shapes [][]int) bool {
	for _, s := range shapes[1:] {
		if !slices.Equal(s, shapes[0]) {
			return false
		}
	}
	return true
}
