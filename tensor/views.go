package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/internal/checked"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// reView returns a new handle onto t's node through v, recording op for
// autograd with params.
func (t *Tensor) reView(op gradOp, v view, params any) *Tensor {
	d := t.n.dev
	d.mu.Lock()
	out := wrap(t.n, v)
	d.mu.Unlock()
	return recordGrad(op, out, []*Tensor{t}, params)
}

// Reshape returns a tensor of the same elements in a new shape; one
// dimension may be -1 and is inferred. It is a view whenever the strides
// allow, and a copy otherwise.
func (t *Tensor) Reshape(shape ...int) *Tensor {
	t.check("Reshape")
	shape = inferShape("Reshape", t.shape, shape)
	if st, ok := reshapeStrides(t.shape, t.strides, shape); ok {
		return t.reView(opReshape, view{shape: shape, strides: st, offset: t.offset}, nil)
	}
	c := t.Contiguous()
	return c.reView(opReshape, contiguousViewAt(shape, c.offset), nil)
}

func contiguousViewAt(shape []int, off int) view {
	v := contiguousView(shape)
	v.offset = off
	return v
}

// inferShape resolves a -1 in shape and checks the element count.
func inferShape(op string, from, shape []int) []int {
	shape = slices.Clone(shape)
	n := device.NumElements(from)
	infer := -1
	known := 1
	for i, s := range shape {
		switch {
		case s == -1 && infer < 0:
			infer = i
		case s < 0:
			usage(op, "invalid shape %v", shape)
		default:
			var ok bool
			if known, ok = checked.Mul(known, s); !ok {
				usage(op, "shape %v has more elements than an int holds, tensor %v has %d", shape, from, n)
			}
		}
	}
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			usage(op, "cannot infer -1 in %v for %d elements (shape %v)", shape, n, from)
		}
		shape[infer] = n / known
	} else if known != n {
		usage(op, "shape %v has %d elements, tensor %v has %d", shape, known, from, n)
	}
	checkExtent(op, shape)
	return shape
}

// reshapeStrides computes strides for viewing (shape, strides) as newShape
// without copying, when possible.
func reshapeStrides(shape, strides, newShape []int) ([]int, bool) {
	out := make([]int, len(newShape))
	if device.NumElements(shape) == 0 {
		return device.ContiguousStrides(newShape), true
	}
	// Drop size-one dimensions; they impose no constraint.
	var os, ost []int
	for i, s := range shape {
		if s != 1 {
			os = append(os, s)
			ost = append(ost, strides[i])
		}
	}
	i := 0 // position in os
	for j := 0; j < len(newShape); {
		if newShape[j] == 1 {
			out[j] = 0
			j++
			continue
		}
		if i >= len(os) {
			return nil, false
		}
		// Take a chunk of old dims that are contiguous with each other and
		// a chunk of new dims with the same product.
		oldProd, newProd := os[i], newShape[j]
		oi, nj := i, j
		for oldProd != newProd {
			if oldProd < newProd {
				oi++
				if oi >= len(os) || ost[oi-1] != ost[oi]*os[oi] {
					return nil, false
				}
				oldProd *= os[oi]
			} else {
				nj++
				if nj >= len(newShape) {
					return nil, false
				}
				newProd *= newShape[nj]
			}
		}
		// New dims j..nj walk the old chunk whose innermost stride is ost[oi].
		st := ost[oi]
		for q := nj; q >= j; q-- {
			out[q] = st
			st *= newShape[q]
		}
		i, j = oi+1, nj+1
	}
	return out, i == len(os)
}

// Flatten merges dimensions start..end (inclusive; negative counts from the
// end) into one.
func (t *Tensor) Flatten(start, end int) *Tensor {
	t.check("Flatten")
	if t.Dim() == 0 {
		return t.Reshape(1)
	}
	s, e := normAxis("Flatten", start, t.Dim()), normAxis("Flatten", end, t.Dim())
	if s > e {
		usage("Flatten", "start %d after end %d for shape %v", start, end, t.shape)
	}
	shape := append([]int{}, t.shape[:s]...)
	shape = append(shape, device.NumElements(t.shape[s:e+1]))
	shape = append(shape, t.shape[e+1:]...)
	return t.Reshape(shape...)
}

// Permute reorders the dimensions: result dimension i is t's dimension dims[i].
func (t *Tensor) Permute(dims ...int) *Tensor {
	t.check("Permute")
	if len(dims) != t.Dim() {
		usage("Permute", "%d dims %v for a %d-dimensional tensor %v", len(dims), dims, t.Dim(), t.shape)
	}
	perm := make([]int, len(dims))
	seen := make([]bool, len(dims))
	for i, p := range dims {
		p = normAxis("Permute", p, t.Dim())
		if seen[p] {
			usage("Permute", "dimension %d repeated in %v", p, dims)
		}
		seen[p] = true
		perm[i] = p
	}
	if r := t.transposedProduct(perm); r != nil {
		return r
	}
	return t.reView(opPermute, permuteView(t.view(), perm), perm)
}

// transposedProduct rewrites the transpose of a pending matrix product
// (A·B)ᵀ as Bᵀ·Aᵀ, so the result is produced in the order it is read and
// can absorb its consumers as an epilogue (a weight gradient feeding its
// optimizer update). It applies only where no gradient is being recorded.
func (t *Tensor) transposedProduct(perm []int) *Tensor {
	n := t.n
	r := len(perm)
	if n.kind != kindMatMul || n.block != nil || n.err != nil || r < 2 || t.recordsGrad() ||
		!t.view().isIdentity(n.shape) || perm[r-2] != r-1 || perm[r-1] != r-2 {
		return nil
	}
	for i := range r - 2 {
		if perm[i] != i {
			return nil
		}
	}
	a := n.attrs.(matmulAttrs)
	d := n.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	shape := append(append([]int{}, a.batch...), a.n, a.m)
	nd := d.newNode(kindMatMul, Float32, shape, []src{
		{n: n.srcs[1].n, v: permuteView(n.srcs[1].v, perm)},
		{n: n.srcs[0].n, v: permuteView(n.srcs[0].v, perm)},
	})
	nd.attrs = matmulAttrs{batch: a.batch, m: a.n, n: a.m, k: a.k}
	return whole(nd)
}

// Transpose swaps dimensions a and b.
func (t *Tensor) Transpose(a, b int) *Tensor {
	t.check("Transpose")
	perm := make([]int, t.Dim())
	for i := range perm {
		perm[i] = i
	}
	a, b = normAxis("Transpose", a, t.Dim()), normAxis("Transpose", b, t.Dim())
	perm[a], perm[b] = perm[b], perm[a]
	return t.Permute(perm...)
}

// T transposes a 2-D tensor.
func (t *Tensor) T() *Tensor {
	t.check("T")
	if t.Dim() != 2 {
		usage("T", "needs a 2-D tensor, got %v", t.shape)
	}
	return t.Transpose(0, 1)
}

// Narrow returns elements start..start+length-1 along dim.
func (t *Tensor) Narrow(dim, start, length int) *Tensor {
	t.check("Narrow")
	d := normAxis("Narrow", dim, t.Dim())
	if start < 0 || length < 0 || start+length > t.shape[d] {
		usage("Narrow", "start %d length %d out of range for dimension %d of %v", start, length, d, t.shape)
	}
	return t.Slice(d, start, start+length, 1)
}

// sliceParams are the parameters of a Slice for autograd.
type sliceParams struct{ dim, start, end, step int }

// Slice returns elements start, start+step, ... below end along dim
// (negative start and end count from the end; step ≥ 1).
func (t *Tensor) Slice(dim, start, end, step int) *Tensor {
	t.check("Slice")
	dim = normAxis("Slice", dim, t.Dim())
	size := t.shape[dim]
	if start < 0 {
		start += size
	}
	if end < 0 {
		end += size
	}
	end = min(end, size)
	if step < 1 || start < 0 || start > size || end < start {
		usage("Slice", "bad range start=%d end=%d step=%d for dimension %d of %v", start, end, step, dim, t.shape)
	}
	v := t.view()
	v.shape, v.strides = slices.Clone(v.shape), slices.Clone(v.strides)
	v.offset += start * v.strides[dim]
	v.shape[dim] = (end - start + step - 1) / step
	v.strides[dim] *= step
	return t.reView(opSlice, v, sliceParams{dim, start, end, step})
}

// Expand broadcasts size-one dimensions (and new leading ones) to shape
// without copying; -1 keeps a dimension.
func (t *Tensor) Expand(shape ...int) *Tensor {
	t.check("Expand")
	if len(shape) < t.Dim() {
		usage("Expand", "cannot expand %v to fewer dimensions %v", t.shape, shape)
	}
	shape = slices.Clone(shape)
	pad := len(shape) - t.Dim()
	for i := range shape {
		if i >= pad && shape[i] == -1 {
			shape[i] = t.shape[i-pad]
		}
		if i >= pad && t.shape[i-pad] != 1 && t.shape[i-pad] != shape[i] {
			usage("Expand", "cannot expand %v to %v", t.shape, shape)
		}
		if shape[i] < 0 {
			usage("Expand", "bad shape %v", shape)
		}
	}
	checkExtent("Expand", shape)
	return t.reView(opExpand, broadcastView(t.view(), shape), nil)
}

// Squeeze removes the given size-one dimensions, or all of them when none
// are given.
func (t *Tensor) Squeeze(dims ...int) *Tensor {
	t.check("Squeeze")
	ax := map[int]bool{}
	for _, d := range dims {
		ax[normAxis("Squeeze", d, t.Dim())] = true
	}
	var sh, st []int
	for i, s := range t.shape {
		drop := s == 1 && (len(dims) == 0 || ax[i])
		if !drop {
			sh, st = append(sh, s), append(st, t.strides[i])
		}
	}
	if sh == nil {
		sh, st = []int{}, []int{}
	}
	return t.reView(opSqueeze, view{shape: sh, strides: st, offset: t.offset}, nil)
}

// Unsqueeze inserts a size-one dimension at dim (which may equal Dim()).
func (t *Tensor) Unsqueeze(dim int) *Tensor {
	t.check("Unsqueeze")
	dim = normAxis("Unsqueeze", dim, t.Dim()+1)
	sh := slices.Insert(slices.Clone(t.shape), dim, 1)
	st := slices.Insert(slices.Clone(t.strides), dim, 0)
	return t.reView(opUnsqueeze, view{shape: sh, strides: st, offset: t.offset}, nil)
}

// Contiguous returns t itself when it is row-major without gaps, and a
// row-major copy otherwise.
func (t *Tensor) Contiguous() *Tensor {
	t.check("Contiguous")
	if t.IsContiguous() {
		return t
	}
	return elementwise(opContiguous, device.OpCast, t.n.dtype, t.n.dtype.ComputeType(), []*Tensor{t})
}

// Cast converts the elements to dt (float to int truncates toward zero and
// saturates; NaN becomes 0; nonzero becomes true).
func (t *Tensor) Cast(dt DType) *Tensor {
	t.check("Cast")
	if !dt.Valid() {
		usage("Cast", "invalid dtype %v", dt)
	}
	if dt == t.n.dtype {
		return t
	}
	return elementwise(opCast, device.OpCast, dt, t.n.dtype.ComputeType(), []*Tensor{t})
}
