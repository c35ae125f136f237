package onnx

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor"
)

// stridesFor returns the element strides of shape as read into an output
// of rank r (0 for broadcast dimensions).
func stridesFor(shape []int, r int) []int {
	st := make([]int, r)
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		j := r - len(shape) + i
		if shape[i] != 1 {
			st[j] = acc
		}
		acc *= shape[i]
	}
	return st
}

// eachIndex calls fn with the linear source offsets of every element of the
// broadcast output shape, in row-major order.
func eachIndex(out []int, strides [][]int, fn func(k int, src []int)) {
	n := numel(out)
	idx := make([]int, len(out))
	src := make([]int, len(strides))
	for k := 0; k < n; k++ {
		fn(k, src)
		for d := len(out) - 1; d >= 0; d-- {
			idx[d]++
			for s := range src {
				src[s] += strides[s][d]
			}
			if idx[d] < out[d] {
				break
			}
			for s := range src {
				src[s] -= strides[s][d] * idx[d]
			}
			idx[d] = 0
		}
	}
}

// hostMap computes out[k] = f(inputs at k) with broadcasting; the result
// has type dt.
func hostMap(dt DataType, f func(x []float64) float64, ins ...*hostValue) (*hostValue, error) {
	x := make([]float64, len(ins))
	return hostBroadcast(dt, ins, func(out *hostValue, k int, src []int) {
		for i, h := range ins {
			x[i] = h.at(src[i])
		}
		out.set(k, f(x))
	})
}

// hostMapInt is hostMap over int64 values, exact for 64-bit integers.
func hostMapInt(dt DataType, f func(x []int64) int64, ins ...*hostValue) (*hostValue, error) {
	x := make([]int64, len(ins))
	return hostBroadcast(dt, ins, func(out *hostValue, k int, src []int) {
		for i, h := range ins {
			x[i] = h.i[src[i]]
		}
		out.i[k] = wrapInt(dt, f(x))
	})
}

// hostBroadcast makes a host value of type dt and the inputs' broadcast
// shape and calls set for each of its elements k with the inputs'
// positions src.
func hostBroadcast(dt DataType, ins []*hostValue, set func(out *hostValue, k int, src []int)) (*hostValue, error) {
	shapes := make([][]int, len(ins))
	for i, h := range ins {
		shapes[i] = h.shape
	}
	shape, err := tensor.BroadcastShapes(shapes...)
	if err != nil {
		return nil, err
	}
	st := make([][]int, len(ins))
	for i, h := range ins {
		st[i] = stridesFor(h.shape, len(shape))
	}
	out := newHost(dt, shape)
	eachIndex(shape, st, func(k int, src []int) { set(out, k, src) })
	return out, nil
}

// hostPick builds a value of shape out whose element k is element src(idx)
// of h, where idx is k's multi-index (structural operations: Transpose,
// Slice, Gather, Expand, Concat pieces).
func hostPick(h *hostValue, out []int, src func(idx []int) int) *hostValue {
	r := newHost(h.dt, slices.Clone(out))
	idx := make([]int, len(out))
	n := numel(out)
	for k := 0; k < n; k++ {
		s := src(idx)
		if h.dt.IsFloat() {
			r.f[k] = h.f[s]
		} else {
			r.i[k] = h.i[s]
		}
		for d := len(out) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < out[d] {
				break
			}
			idx[d] = 0
		}
	}
	return r
}

// reshaped returns h with a new shape of the same size (sharing data).
func (h *hostValue) reshaped(shape []int) *hostValue {
	return &hostValue{dt: h.dt, shape: shape, f: h.f, i: h.i}
}
