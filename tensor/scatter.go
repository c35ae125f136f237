package tensor

import (
	"errors"
	"fmt"
	"slices"
)

// Scatter-like ops composed of ScatterAdd, Gather and Where. Where a result
// depends on which source position lands where, the position is scattered
// (as a Float32, exact up to maxScatterPositions) and the source is then
// gathered from it, so every dtype stays exact and gradients flow through
// the Gather.

// maxScatterPositions bounds the source elements of Scatter and the
// elements of MaskedSelect: their positions travel through ScatterAdd's
// Float32, exact up to 2^24.
const maxScatterPositions = 1 << 24

// ErrDuplicateIndex is returned by Scatter when index names one position of
// the result more than once: PyTorch leaves which value lands there
// undefined, so Shaderflow refuses.
var ErrDuplicateIndex = errors.New("tensor: Scatter: index names a position more than once")

// scatterCheck validates index (Int32 or Int64, t's rank, no larger than t outside
// dim nor than other) and returns the normalized dim.
func (t *Tensor) scatterCheck(op string, dim int, index *Tensor, other []int) int {
	t.check(op)
	index.check(op)
	sameDevice(op, t.n.dev, index)
	dim = normAxis(op, dim, t.Dim())
	if !isIndexType(index.DType()) || index.Dim() != t.Dim() {
		usage(op, "index must be Int32 or Int64 of rank %d, got %s %v", t.Dim(), index.DType(), index.shape)
	}
	for i, s := range index.shape {
		if (i != dim && s > t.shape[i]) || (other != nil && s > other[i]) {
			usage(op, "index %v larger than the input %v outside dimension %d or than the source %v", index.shape, t.shape, dim, other)
		}
	}
	return dim
}

// writes counts, for each position of t, how many index entries name it.
func (t *Tensor) writes(dim int, index *Tensor) *Tensor {
	return ScatterAdd(t.shape, dim, index, FullOf(t.n.dev, Float32, 1, index.shape...))
}

// Scatter returns t with src[i] written at the position that index[i]
// names along dim, as torch.scatter(input, dim, index, src): index has t's
// rank and is no larger than src, nor than t outside dim; src's elements
// beyond index's extent are unused. An index out of range is an error when
// the result is read. It reads back, once, how often each position is
// written, and returns ErrDuplicateIndex where a position is named twice
// (PyTorch leaves the result undefined there); ScatterAdd sums instead.
func (t *Tensor) Scatter(dim int, index, src *Tensor) (*Tensor, error) {
	src.check("Scatter")
	dim = t.scatterCheck("Scatter", dim, index, src.shape)
	sameDevice("Scatter", t.n.dev, src)
	if src.DType() != t.DType() {
		usage("Scatter", "source %s and input %s differ in dtype", src.DType(), t.DType())
	}
	n := index.NumElements()
	if n > maxScatterPositions {
		usage("Scatter", "index %v has more than %d elements", index.shape, maxScatterPositions)
	}
	if n == 0 {
		return t, nil
	}
	if t.NumElements() == 0 {
		usage("Scatter", "index %v names positions of the empty input %v", index.shape, t.shape)
	}
	count := t.writes(dim, index)
	most, err := count.Max().Item()
	if err != nil {
		return nil, fmt.Errorf("tensor: Scatter: %w", err)
	}
	if most > 1 {
		return nil, ErrDuplicateIndex
	}
	part := src
	for i, s := range index.shape {
		part = part.Narrow(i, 0, s)
	}
	at := positions(t.n.dev, n).AddScalar(1).Cast(Float32).Reshape(index.shape...)
	from := ScatterAdd(t.shape, dim, index, at).SubScalar(1).Maximum(Zeros(t.n.dev)).Cast(Int32)
	picked := part.Reshape(-1).Gather(0, from.Reshape(-1)).Reshape(t.shape...)
	return Where(count.GtScalar(0), picked, t), nil
}

// ScatterValue returns t with value at every position index names along
// dim, as torch.scatter(input, dim, index, value); repeated positions are
// harmless.
func (t *Tensor) ScatterValue(dim int, index *Tensor, value float64) *Tensor {
	dim = t.scatterCheck("ScatterValue", dim, index, nil)
	return Where(t.writes(dim, index).GtScalar(0), FullOf(t.n.dev, t.DType(), value, t.shape...), t)
}

// IndexAdd returns t with src's slices along dim added at the positions the
// 1-D Int32 index names, as torch.index_add(input, dim, index, source):
// src has t's shape except len(index) along dim, and repeated positions
// accumulate. t must be a float tensor (the sums are Float32).
func (t *Tensor) IndexAdd(dim int, index, src *Tensor) *Tensor {
	t.check("IndexAdd")
	index.check("IndexAdd")
	src.check("IndexAdd")
	dim = normAxis("IndexAdd", dim, t.Dim())
	if !t.DType().IsFloat() {
		usage("IndexAdd", "needs a float tensor, got %s (sums are Float32)", t.DType())
	}
	if index.Dim() != 1 || !isIndexType(index.DType()) {
		usage("IndexAdd", "index must be 1-D Int32 or Int64, got %s %v", index.DType(), index.shape)
	}
	want := slices.Clone(t.shape)
	want[dim] = index.shape[0]
	if !slices.Equal(src.shape, want) {
		usage("IndexAdd", "source %v must have shape %v (the input's with the index's length along %d)", src.shape, want, dim)
	}
	ishape := slices.Repeat([]int{1}, t.Dim())
	ishape[dim] = index.shape[0]
	sums := ScatterAdd(t.shape, dim, index.Reshape(ishape...).Expand(want...), src)
	return t.Add(sums.Cast(t.DType()))
}

// MaskedSelect returns, as a 1-D tensor, the elements of t where the Bool
// mask is true, in row-major order, as torch.masked_select (t and mask
// broadcast together). The result's length depends on the data: it reads
// the mask's count back from the device (one synchronization) before
// returning. Up to 2^24 elements.
func (t *Tensor) MaskedSelect(mask *Tensor) (*Tensor, error) {
	t.check("MaskedSelect")
	mask.check("MaskedSelect")
	sameDevice("MaskedSelect", t.n.dev, mask)
	if mask.DType() != Bool {
		usage("MaskedSelect", "mask must be Bool, got %s", mask.DType())
	}
	shape := broadcastShapes("MaskedSelect", t.shape, mask.shape)
	n := 1
	for _, s := range shape {
		n *= s
	}
	if n > maxScatterPositions {
		usage("MaskedSelect", "shape %v has more than %d elements", shape, maxScatterPositions)
	}
	x := t.Expand(shape...).Reshape(n)
	if n == 0 {
		return x, nil
	}
	m := mask.Expand(shape...).Reshape(n)
	rank := m.Cumsum(0).Cast(Int32) // 1-based rank of each selected element: a count, exact on every backend
	total, err := rank.Narrow(0, n-1, 1).Item()
	if err != nil {
		return nil, fmt.Errorf("tensor: MaskedSelect: %w", err)
	}
	k := int(total)
	if k == 0 {
		return x.Narrow(0, 0, 0), nil
	}
	// Selected element i goes to slot rank-1 carrying i+1; the others add
	// zero to slot k, which is dropped.
	slot := Where(m, rank.SubScalar(1), FullOf(t.n.dev, Int32, float64(k), n))
	at := Where(m, positions(t.n.dev, n).AddScalar(1).Cast(Float32), Zeros(t.n.dev, n))
	from := ScatterAdd([]int{k + 1}, 0, slot, at).Narrow(0, 0, k).SubScalar(1).Cast(Int32)
	return x.Gather(0, from), nil
}
