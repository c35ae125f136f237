package tensor

import "slices"

// A device with a sort kernel (device.Sorter) sorts each line in one
// kernel. Elsewhere sorting runs as a bitonic network of Gather and Where
// (dimensions of up to maxRankSort elements are ranked instead, see
// rankSort): the sorted dimension is moved last and padded to a power of
// two P, and each of the log2(P)·(log2(P)+1)/2 stages gathers every
// element's partner (position i XOR j) and keeps the smaller or larger of
// the two in one fused elementwise step. Elements are compared as (class,
// value, position): numbers before NaN before padding (NaN first when
// descending, as PyTorch orders it), equal values by position, so the
// order is total and the result is torch.sort's with stable=True. Both run
// on detached values and positions; the values returned are one Gather of
// the input, through which gradients flow.

// Sort returns the values along axis in ascending (or descending) order and
// their Int32 positions, as torch.sort(input, dim, descending, stable=True):
// ties keep their order and NaN counts as larger than every number.
func (t *Tensor) Sort(axis int, descending bool) (values, indices *Tensor) {
	t.check("Sort")
	if t.Dim() == 0 {
		return t, FullOf(t.n.dev, Int32, 0)
	}
	a := normAxis("Sort", axis, t.Dim())
	indices = t.sortPositions(a, descending, t.shape[a])
	return t.Gather(a, indices), indices
}

// ArgSort returns the Int32 positions that sort t along axis, as
// torch.argsort(input, dim, descending, stable=True).
func (t *Tensor) ArgSort(axis int, descending bool) *Tensor {
	t.check("ArgSort")
	if t.Dim() == 0 {
		return FullOf(t.n.dev, Int32, 0)
	}
	a := normAxis("ArgSort", axis, t.Dim())
	return t.sortPositions(a, descending, t.shape[a])
}

// TopK returns the k largest (or smallest) values along axis in order and
// their Int32 positions, as torch.topk(input, k, dim, largest, sorted=True);
// of equal values the first positions are taken.
func (t *Tensor) TopK(k, axis int, largest bool) (values, indices *Tensor) {
	t.check("TopK")
	if t.Dim() == 0 {
		if k != 0 && k != 1 {
			usage("TopK", "k %d out of range for a 0-dimensional tensor", k)
		}
		return t.Sort(0, largest)
	}
	a := normAxis("TopK", axis, t.Dim())
	if k < 0 || k > t.shape[a] {
		usage("TopK", "k %d out of range for dimension %d of %v", k, a, t.shape)
	}
	indices = t.sortPositions(a, largest, k)
	return t.Gather(a, indices), indices
}

// maxMedianLength bounds Median's dimension: the count of NaN that picks a
// line's position is summed in Float32, exact up to 2^24.
const maxMedianLength = 1 << 24

// Median returns the lower median along axis (the element at position
// (n-1)/2 in sorted order) and its Int32 position, as torch.median(input,
// dim, keepdim): a line holding NaN gives NaN and the position of its first
// NaN; of equal values the stable order's is named.
func (t *Tensor) Median(axis int, keep bool) (values, indices *Tensor) {
	t.check("Median")
	if t.Dim() == 0 {
		return t, FullOf(t.n.dev, Int32, 0)
	}
	a := normAxis("Median", axis, t.Dim())
	n := t.shape[a]
	if n == 0 || n > maxMedianLength {
		usage("Median", "dimension %d of %v must hold 1 to %d elements", a, t.shape, maxMedianLength)
	}
	order := t.sortPositions(a, false, n)
	sh := slices.Clone(t.shape)
	sh[a] = 1
	pos := FullOf(t.n.dev, Int32, float64((n-1)/2), sh...)
	if t.DType().IsFloat() { // NaN sorts last: the first one is at n - count
		nans := t.IsNaN().Cast(Float32).SumKeepDim(a).Cast(Int32)
		pos = Where(nans.GtScalar(0), nans.RSubScalar(float64(n)), pos)
	}
	indices = order.Gather(a, pos)
	values = t.Gather(a, indices)
	if !keep {
		return values.Squeeze(a), indices.Squeeze(a)
	}
	return values, indices
}

// sortPositions sorts t along axis a and returns the first k (at most the
// dimension's length) Int32 positions in sorted order along a, in t's shape
// otherwise.
func (t *Tensor) sortPositions(a int, descending bool, k int) *Tensor {
	d := t.n.dev
	n := t.shape[a]
	if n <= 1 || k == 0 {
		return FullOf(d, Int32, 0, t.shape...).Contiguous().Narrow(a, 0, k)
	}
	x := t.Detach().Transpose(a, -1)
	if x.DType() == Bool {
		x = x.Cast(Int32)
	}
	if pos := nativeSortPositions(x, descending, k); pos != nil {
		return pos.Transpose(a, -1).Contiguous()
	}
	if n <= maxRankSort {
		return rankSort(x, descending).Narrow(-1, 0, k).Transpose(a, -1).Contiguous()
	}
	p := 1
	for p < n {
		p *= 2
	}
	x = x.Pad([]int{0, p - n}, PadConstant, 0)
	shape := x.shape
	line := func(ts *Tensor) *Tensor { // a [P] tensor broadcast over the lines
		return ts.Reshape(append(slices.Repeat([]int{1}, len(shape)-1), p)...).Expand(shape...)
	}
	pos := positions(d, p)
	idx := line(pos)
	v := x
	// bit(b) is bit b (a power of two) of each position; the partner of
	// position i at step j is i XOR j, the same for every k, so it is
	// computed once per j. An element keeps the smaller of its pair where
	// bit k and bit j of its position agree.
	bit := func(b int) *Tensor {
		return pos.FloorDiv(pos.scalarLike(float64(b))).Sub(pos.FloorDiv(pos.scalarLike(float64(2 * b))).MulScalar(2))
	}
	partners := map[int]*Tensor{}
	for j := 1; j < p; j *= 2 {
		partners[j] = line(pos.AddScalar(float64(j)).Sub(bit(j).MulScalar(float64(2 * j))))
	}
	for k := 2; k <= p; k *= 2 {
		for j := k / 2; j >= 1; j /= 2 {
			pi := partners[j]
			pv, pIdx := v.Gather(-1, pi), idx.Gather(-1, pi)
			first := sortsBefore(v, idx, pv, pIdx, n, descending)
			take := Where(line(bit(k).Eq(bit(j))), first, first.Not())
			v, idx = Where(take, v, pv), Where(take, idx, pIdx)
		}
	}
	return idx.Narrow(-1, 0, k).Transpose(a, -1).Contiguous()
}

// maxRankSort is the longest dimension sorted by ranking instead of the
// network: n² comparisons per line, but one reduction and one scatter
// instead of log2(P)(log2(P)+1)/2 stages (on the CPU backend, 1024 lines of
// 256 took 0.79 s ranked and 1.1 s through the network; of 32, 0.02 s
// against 0.3 s).
const maxRankSort = 256

// rankSort returns the positions that sort x's last dimension: each
// element's rank is how many elements precede it in the total order (one
// Sum over broadcast comparisons), and position i is scattered to its rank.
func rankSort(x *Tensor, descending bool) *Tensor {
	n := x.shape[x.Dim()-1]
	idx := positions(x.n.dev, n).Expand(x.shape...)
	col := func(t *Tensor) *Tensor { return t.Unsqueeze(-1) } // element i, against every j
	row := func(t *Tensor) *Tensor { return t.Unsqueeze(-2) } // element j
	rank := sortsBefore(row(x), row(idx), col(x), col(idx), n, descending).Cast(Float32).Sum(-1).Cast(Int32)
	return ScatterAdd(x.shape, -1, rank, idx.Cast(Float32)).Cast(Int32)
}

// sortsBefore reports whether element (v, i) precedes (w, j) in the
// network's total order; positions from n on are padding.
func sortsBefore(v, i, w, j *Tensor, n int, descending bool) *Tensor {
	cv, cw := sortClass(v, i, n, descending), sortClass(w, j, n, descending)
	var less, greater *Tensor
	if descending {
		less, greater = v.Gt(w), v.Lt(w)
	} else {
		less, greater = v.Lt(w), v.Gt(w)
	}
	tie := greater.Not().LogicalAnd(i.Lt(j)) // equal, NaN against NaN, or padding
	same := cv.Eq(cw).LogicalAnd(less.LogicalOr(tie))
	return cv.Lt(cw).LogicalOr(same)
}

// sortClass is 0 for numbers, 1 for NaN (swapped when descending) and 2 for
// padding, as Int32.
func sortClass(v, i *Tensor, n int, descending bool) *Tensor {
	num, nan := 0.0, 1.0
	if descending {
		num, nan = 1, 0
	}
	c := FullOf(v.n.dev, Int32, num, v.shape...)
	if v.DType().IsFloat() {
		c = Where(v.IsNaN(), FullOf(v.n.dev, Int32, nan, v.shape...), c)
	}
	return Where(i.Ge(i.scalarLike(float64(n))), FullOf(v.n.dev, Int32, 2, v.shape...), c)
}
