package ref

import (
	"fmt"
	"slices"
)

// Cat concatenates arrays along dim; all other sizes must agree.
func Cat(dim int, arrays ...*Array) *Array {
	if len(arrays) == 0 {
		panic("ref.Cat: no arrays")
	}
	first := arrays[0]
	dim = normAxis("Cat", dim, first.Dim())
	shape := slices.Clone(first.shape)
	shape[dim] = 0
	for _, a := range arrays {
		if a.Dim() != first.Dim() {
			panic(fmt.Sprintf("ref.Cat: shapes %v and %v", first.shape, a.shape))
		}
		for d := range a.shape {
			if d != dim && a.shape[d] != first.shape[d] {
				panic(fmt.Sprintf("ref.Cat: shapes %v and %v differ outside dim %d", first.shape, a.shape, dim))
			}
		}
		shape[dim] += a.shape[dim]
	}
	out := Zeros(shape...)
	at := 0
	for _, a := range arrays {
		dst := out.Narrow(dim, at, a.shape[dim])
		a.each(func(idx []int, off int) { out.data[dst.offsetOf(idx)] = a.data[off] })
		at += a.shape[dim]
	}
	return out
}

// Stack joins arrays of one shape along a new dimension dim.
func Stack(dim int, arrays ...*Array) *Array {
	if len(arrays) == 0 {
		panic("ref.Stack: no arrays")
	}
	dim = normAxis("Stack", dim, arrays[0].Dim()+1)
	parts := make([]*Array, len(arrays))
	for i, a := range arrays {
		if !slices.Equal(a.shape, arrays[0].shape) {
			panic(fmt.Sprintf("ref.Stack: shapes %v and %v differ", arrays[0].shape, a.shape))
		}
		parts[i] = a.Unsqueeze(dim)
	}
	return Cat(dim, parts...)
}

// Gather is torch.gather: out[i] = a[i with i[dim] replaced by index[i]] for
// every multi-index i of index, which has a's rank.
func Gather(a *Array, dim int, index *Array) *Array {
	dim = normAxis("Gather", dim, a.Dim())
	if index.Dim() != a.Dim() {
		panic(fmt.Sprintf("ref.Gather: index %v and input %v differ in rank", index.shape, a.shape))
	}
	for d := range index.shape {
		if d != dim && index.shape[d] > a.shape[d] {
			panic(fmt.Sprintf("ref.Gather: index %v larger than input %v outside dim %d", index.shape, a.shape, dim))
		}
	}
	src := make([]int, a.Dim())
	out := make([]float64, 0, index.Size())
	index.each(func(idx []int, off int) {
		copy(src, idx)
		src[dim] = checkIndex("Gather", index.data[off], a.shape[dim])
		out = append(out, a.At(src...))
	})
	return New(out, index.shape...)
}

// IndexSelect is torch.index_select: the positions index (a 1-D array) of
// dimension dim.
func IndexSelect(a *Array, dim int, index *Array) *Array {
	dim = normAxis("IndexSelect", dim, a.Dim())
	if index.Dim() != 1 {
		panic(fmt.Sprintf("ref.IndexSelect: index %v is not 1-D", index.shape))
	}
	parts := make([]*Array, index.Size())
	for i, v := range index.Values() {
		parts[i] = a.Narrow(dim, checkIndex("IndexSelect", v, a.shape[dim]), 1)
	}
	if len(parts) == 0 {
		shape := slices.Clone(a.shape)
		shape[dim] = 0
		return Zeros(shape...)
	}
	return Cat(dim, parts...)
}

func checkIndex(op string, v float64, n int) int {
	i := int(v)
	if float64(i) != v || i < 0 || i >= n {
		panic(fmt.Sprintf("ref.%s: index %g out of range [0, %d)", op, v, n))
	}
	return i
}

// offsetOf returns the data offset of the multi-index idx.
func (a *Array) offsetOf(idx []int) int {
	off := a.offset
	for d, x := range idx {
		off += x * a.strides[d]
	}
	return off
}
