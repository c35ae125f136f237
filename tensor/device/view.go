package device

import (
	"fmt"

	"github.com/shaderflow/shaderflow/internal/checked"
)

// View is a strided window onto a buffer: element (i0, i1, ...) lives at
// element index Offset + i0*Strides[0] + i1*Strides[1] + ... of Buf, in units of
// DType. Strides may be zero (broadcasting) and need not be ordered
// (transposes). A View never owns its buffer.
type View struct {
	Buf     Buffer
	DType   DType
	Offset  int
	Shape   []int
	Strides []int
}

// NumElements returns the product of the shape. A negative dimension or a
// product that does not fit in an int panics rather than wrapping: shapes
// that reach a backend have passed Validate, so only a caller that skipped
// it can get here with one.
func NumElements(shape []int) int {
	n, ok := checked.Product(shape...)
	if !ok {
		panic(fmt.Sprintf("device.NumElements: shape %v has a negative dimension or more elements than an int holds", shape))
	}
	return n
}

// ContiguousStrides returns row-major strides for shape.
func ContiguousStrides(shape []int) []int {
	st := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= shape[i]
	}
	return st
}

// Contiguous returns a row-major view of the whole of shape starting at offset.
func Contiguous(buf Buffer, dt DType, offset int, shape []int) View {
	return View{Buf: buf, DType: dt, Offset: offset, Shape: shape, Strides: ContiguousStrides(shape)}
}

// NumElements returns the number of elements the view addresses.
func (v View) NumElements() int { return NumElements(v.Shape) }

// IsContiguous reports whether the view is row-major without gaps (dimensions
// of size one may have any stride).
func (v View) IsContiguous() bool {
	acc := 1
	for i := len(v.Shape) - 1; i >= 0; i-- {
		if v.Shape[i] != 1 && v.Strides[i] != acc {
			return false
		}
		acc *= v.Shape[i]
	}
	return true
}

// IsDenseRows reports whether the view's elements fill a range of the
// buffer one to one with its last dimension innermost: its strides are the
// contiguous strides of some order of its dimensions that ends with the
// last (dimensions of size one may have any stride). A contiguous view is
// one; so is a [B, H, L, D] view of a [B, L, H, D] array.
func (v View) IsDenseRows() bool {
	if !v.HasDistinctRows() {
		return false
	}
	lo, hi := v.Span()
	return hi-lo == v.NumElements()
}

// HasDistinctRows reports whether the view's last dimension is contiguous
// and no two of its positions share an element: ordered by stride, each
// dimension steps past everything the smaller ones reach (dimensions of
// size one may have any stride). Gaps are allowed: three such views may
// interleave in one array, as the query, key and value gradients of one
// projection's heads.
func (v View) HasDistinctRows() bool {
	r := len(v.Shape)
	if r == 0 || NumElements(v.Shape) == 0 || v.IsContiguous() {
		return true
	}
	if v.Shape[r-1] != 1 && v.Strides[r-1] != 1 {
		return false
	}
	var dims [maxDenseRank]int
	n := 0
	for i := 0; i < r-1; i++ {
		if v.Shape[i] == 1 {
			continue
		}
		if n == maxDenseRank {
			return false
		}
		j := n
		for j > 0 && v.Strides[dims[j-1]] > v.Strides[i] {
			dims[j] = dims[j-1]
			j--
		}
		dims[j] = i
		n++
	}
	reach := v.Shape[r-1] // elements spanned by the dimensions visited so far
	for _, i := range dims[:n] {
		if v.Strides[i] < reach {
			return false
		}
		reach += (v.Shape[i] - 1) * v.Strides[i]
	}
	return true
}

// maxDenseRank bounds the dimensions HasDistinctRows sorts without
// allocating.
const maxDenseRank = 16

// Span returns the smallest and one past the largest element index the view
// touches. For an empty view it returns (Offset, Offset).
func (v View) Span() (lo, hi int) {
	lo, hi = v.Offset, v.Offset+1
	for i, s := range v.Shape {
		if s == 0 {
			return v.Offset, v.Offset
		}
		d := (s - 1) * v.Strides[i]
		if d < 0 {
			lo += d
		} else {
			hi += d
		}
	}
	return lo, hi
}

// At returns the element index of the multi-index idx.
func (v View) At(idx []int) int {
	off := v.Offset
	for i, x := range idx {
		off += x * v.Strides[i]
	}
	return off
}

// Index returns the element index of the linear (row-major) position p.
func (v View) Index(p int) int {
	off := v.Offset
	for i := len(v.Shape) - 1; i >= 0; i-- {
		s := v.Shape[i]
		off += (p % s) * v.Strides[i]
		p /= s
	}
	return off
}
