package ref

import (
	"fmt"
	"slices"
)

// The zero-copy views. Each returns a new Array sharing a's data.

func (a *Array) view(shape, strides []int, offset int) *Array {
	return &Array{shape: shape, strides: strides, offset: offset, data: a.data}
}

// Reshape returns the array with a new shape of the same size; one size may
// be -1 and is inferred. A non-contiguous array is copied first.
func (a *Array) Reshape(shape ...int) *Array {
	shape = slices.Clone(shape)
	infer, known := -1, 1
	for i, s := range shape {
		switch {
		case s == -1 && infer < 0:
			infer = i
		case s < 0:
			panic(fmt.Sprintf("ref.Reshape: bad shape %v for %v", shape, a.shape))
		default:
			known *= s
		}
	}
	if infer >= 0 {
		if known == 0 || a.Size()%known != 0 {
			panic(fmt.Sprintf("ref.Reshape: cannot infer -1 in %v for %v", shape, a.shape))
		}
		shape[infer] = a.Size() / known
	}
	if numElements(shape) != a.Size() {
		panic(fmt.Sprintf("ref.Reshape: shape %v does not fit %v", shape, a.shape))
	}
	c := a
	if !a.IsContiguous() {
		c = a.Contiguous()
	}
	return c.view(shape, contiguousStrides(shape), c.offset)
}

// Flatten merges dimensions start..end (inclusive, negative allowed) into one.
func (a *Array) Flatten(start, end int) *Array {
	r := max(a.Dim(), 1)
	start, end = normAxis("Flatten", start, r), normAxis("Flatten", end, r)
	if a.Dim() == 0 {
		return a.Reshape(1)
	}
	if start > end {
		panic(fmt.Sprintf("ref.Flatten: start %d after end %d for %v", start, end, a.shape))
	}
	shape := slices.Clone(a.shape[:start])
	shape = append(shape, numElements(a.shape[start:end+1]))
	shape = append(shape, a.shape[end+1:]...)
	return a.Reshape(shape...)
}

// Permute reorders the dimensions: result dimension i is a's dimension dims[i].
func (a *Array) Permute(dims ...int) *Array {
	if len(dims) != a.Dim() {
		panic(fmt.Sprintf("ref.Permute: %d dims %v for shape %v", len(dims), dims, a.shape))
	}
	seen := make([]bool, a.Dim())
	shape, strides := make([]int, a.Dim()), make([]int, a.Dim())
	for i, d := range dims {
		d = normAxis("Permute", d, a.Dim())
		if seen[d] {
			panic(fmt.Sprintf("ref.Permute: repeated dim in %v for shape %v", dims, a.shape))
		}
		seen[d] = true
		shape[i], strides[i] = a.shape[d], a.strides[d]
	}
	return a.view(shape, strides, a.offset)
}

// Transpose swaps dimensions i and j.
func (a *Array) Transpose(i, j int) *Array {
	i, j = normAxis("Transpose", i, a.Dim()), normAxis("Transpose", j, a.Dim())
	dims := make([]int, a.Dim())
	for k := range dims {
		dims[k] = k
	}
	dims[i], dims[j] = j, i
	return a.Permute(dims...)
}

// T transposes a 2-D array.
func (a *Array) T() *Array {
	if a.Dim() != 2 {
		panic(fmt.Sprintf("ref.T: shape %v is not 2-D", a.shape))
	}
	return a.Transpose(0, 1)
}

// Slice keeps positions start, start+step, ... below end of dimension dim
// (start and end clamped to the size like Python slices; step > 0).
func (a *Array) Slice(dim, start, end, step int) *Array {
	dim = normAxis("Slice", dim, a.Dim())
	n := a.shape[dim]
	if step <= 0 {
		panic(fmt.Sprintf("ref.Slice: step %d must be positive (shape %v)", step, a.shape))
	}
	clamp := func(x int) int {
		if x < 0 {
			x += n
		}
		return min(max(x, 0), n)
	}
	start, end = clamp(start), clamp(end)
	length := 0
	if end > start {
		length = (end - start + step - 1) / step
	}
	shape, strides := slices.Clone(a.shape), slices.Clone(a.strides)
	shape[dim] = length
	strides[dim] *= step
	off := a.offset
	if length > 0 {
		off += start * a.strides[dim]
	}
	return a.view(shape, strides, off)
}

// Narrow keeps length positions of dimension dim from start.
func (a *Array) Narrow(dim, start, length int) *Array {
	d := normAxis("Narrow", dim, a.Dim())
	if start < 0 || length < 0 || start+length > a.shape[d] {
		panic(fmt.Sprintf("ref.Narrow: [%d, %d+%d) out of dim %d of %v", start, start, length, dim, a.shape))
	}
	return a.Slice(d, start, start+length, 1)
}

// Expand broadcasts dimensions of size one (and new leading dimensions) to
// shape; -1 keeps a size.
func (a *Array) Expand(shape ...int) *Array {
	if len(shape) < a.Dim() {
		panic(fmt.Sprintf("ref.Expand: cannot expand %v to %v", a.shape, shape))
	}
	lead := len(shape) - a.Dim()
	outShape, strides := make([]int, len(shape)), make([]int, len(shape))
	for i, s := range shape {
		if i < lead {
			if s < 0 {
				panic(fmt.Sprintf("ref.Expand: -1 in a new dimension of %v", shape))
			}
			outShape[i] = s
			continue
		}
		src := a.shape[i-lead]
		switch {
		case s == -1 || s == src:
			outShape[i], strides[i] = src, a.strides[i-lead]
		case src == 1:
			outShape[i] = s
		default:
			panic(fmt.Sprintf("ref.Expand: cannot expand %v to %v", a.shape, shape))
		}
	}
	return a.view(outShape, strides, a.offset)
}

// Squeeze removes the given dimensions of size one, or all of them when dims
// is empty. A listed dimension whose size is not one is kept, as in PyTorch.
func (a *Array) Squeeze(dims ...int) *Array {
	drop := make([]bool, a.Dim())
	if len(dims) == 0 {
		for i, s := range a.shape {
			drop[i] = s == 1
		}
	}
	for _, d := range dims {
		d = normAxis("Squeeze", d, a.Dim())
		drop[d] = a.shape[d] == 1
	}
	var shape, strides []int
	for i := range a.shape {
		if !drop[i] {
			shape = append(shape, a.shape[i])
			strides = append(strides, a.strides[i])
		}
	}
	return a.view(shape, strides, a.offset)
}

// Unsqueeze inserts a dimension of size one at position dim (in
// [-rank-1, rank]).
func (a *Array) Unsqueeze(dim int) *Array {
	dim = normAxis("Unsqueeze", dim, a.Dim()+1)
	shape := slices.Insert(slices.Clone(a.shape), dim, 1)
	strides := slices.Insert(slices.Clone(a.strides), dim, 0)
	return a.view(shape, strides, a.offset)
}
