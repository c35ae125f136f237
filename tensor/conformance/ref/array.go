package ref

import (
	"fmt"
	"math"
	"slices"
)

// Array is a strided float64 view: element (i0, i1, ...) is
// data[offset + i0*strides[0] + i1*strides[1] + ...]. Views share data; no
// operation of this package writes into an array it was given.
type Array struct {
	shape   []int
	strides []int
	offset  int
	data    []float64
}

// New returns a contiguous array of the given shape holding data (row-major),
// which it takes ownership of. A call without shape makes a scalar and needs
// exactly one value.
func New(data []float64, shape ...int) *Array {
	n := numElements(shape)
	if n != len(data) {
		panic(fmt.Sprintf("ref.New: %d values for shape %v (%d elements)", len(data), shape, n))
	}
	for _, s := range shape {
		if s < 0 {
			panic(fmt.Sprintf("ref.New: negative size in shape %v", shape))
		}
	}
	return &Array{shape: slices.Clone(shape), strides: contiguousStrides(shape), data: data}
}

// Scalar returns a zero-dimensional array holding v.
func Scalar(v float64) *Array { return New([]float64{v}) }

// Full returns a contiguous array of the given shape filled with v.
func Full(v float64, shape ...int) *Array {
	d := make([]float64, numElements(shape))
	for i := range d {
		d[i] = v
	}
	return New(d, shape...)
}

// Zeros returns a contiguous array of zeros.
func Zeros(shape ...int) *Array { return Full(0, shape...) }

// Arange returns the 1-D array start, start+step, ... up to but excluding
// stop, with PyTorch's length rule ceil((stop-start)/step).
func Arange(start, stop, step float64) *Array {
	if step == 0 {
		panic("ref.Arange: step is zero")
	}
	n := int(math.Ceil((stop - start) / step))
	if n < 0 {
		n = 0
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = start + float64(i)*step
	}
	return New(d, n)
}

// Shape returns a copy of the array's shape.
func (a *Array) Shape() []int { return slices.Clone(a.shape) }

// Strides returns a copy of the array's strides, in elements.
func (a *Array) Strides() []int { return slices.Clone(a.strides) }

// Dim returns the number of dimensions.
func (a *Array) Dim() int { return len(a.shape) }

// Size returns the number of elements.
func (a *Array) Size() int { return numElements(a.shape) }

// IsContiguous reports whether the view is row-major without gaps.
func (a *Array) IsContiguous() bool {
	acc := 1
	for i := len(a.shape) - 1; i >= 0; i-- {
		if a.shape[i] != 1 && a.strides[i] != acc {
			return false
		}
		acc *= a.shape[i]
	}
	return true
}

// At returns the element at the multi-index idx (one index per dimension).
func (a *Array) At(idx ...int) float64 {
	if len(idx) != len(a.shape) {
		panic(fmt.Sprintf("ref.At: %d indices for shape %v", len(idx), a.shape))
	}
	off := a.offset
	for i, x := range idx {
		if x < 0 || x >= a.shape[i] {
			panic(fmt.Sprintf("ref.At: index %v out of range for shape %v", idx, a.shape))
		}
		off += x * a.strides[i]
	}
	return a.data[off]
}

// Item returns the single value of a one-element array.
func (a *Array) Item() float64 {
	if a.Size() != 1 {
		panic(fmt.Sprintf("ref.Item: shape %v has %d elements, not 1", a.shape, a.Size()))
	}
	return a.data[a.offset]
}

// Values returns the elements in row-major order, as a new slice.
func (a *Array) Values() []float64 {
	if run, ok := a.run(); ok {
		return slices.Clone(run)
	}
	out := make([]float64, 0, a.Size())
	a.each(func(_ []int, off int) { out = append(out, a.data[off]) })
	return out
}

// run returns the array's elements in row-major order as one slice of its
// storage, when they are stored that way.
func (a *Array) run() ([]float64, bool) {
	acc := 1
	for d := len(a.shape) - 1; d >= 0; d-- {
		if a.shape[d] != 1 && a.strides[d] != acc {
			return nil, false
		}
		acc *= a.shape[d]
	}
	if acc == 0 {
		return nil, false // empty: each handles it
	}
	return a.data[a.offset : a.offset+acc], true
}

// Contiguous returns a row-major copy of the array.
func (a *Array) Contiguous() *Array { return New(a.Values(), a.shape...) }

// String renders the shape and, for small arrays, the values.
func (a *Array) String() string {
	if a.Size() <= 16 {
		return fmt.Sprintf("ref%v%v", a.shape, a.Values())
	}
	return fmt.Sprintf("ref%v", a.shape)
}

// each calls f with every multi-index of the array in row-major order and the
// data offset of that element. f must not keep idx.
func (a *Array) each(f func(idx []int, off int)) {
	forEachIndex(a.shape, func(idx []int) {
		off := a.offset
		for i, x := range idx {
			off += x * a.strides[i]
		}
		f(idx, off)
	})
}

// forEachIndex calls f with every multi-index of shape in row-major order
// (once with an empty index for a scalar, never for an empty shape). f must
// not keep idx.
func forEachIndex(shape []int, f func(idx []int)) {
	if numElements(shape) == 0 {
		return
	}
	idx := make([]int, len(shape))
	for {
		f(idx)
		d := len(shape) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

func numElements(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

func contiguousStrides(shape []int) []int {
	st := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= shape[i]
	}
	return st
}

// normAxis turns a possibly negative axis into one in [0, rank) or panics.
func normAxis(op string, axis, rank int) int {
	if axis < -rank || axis >= rank {
		panic(fmt.Sprintf("ref.%s: axis %d out of range for %d dimensions", op, axis, rank))
	}
	if axis < 0 {
		axis += rank
	}
	return axis
}
