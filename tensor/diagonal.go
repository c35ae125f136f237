package tensor

import "slices"

// Diagonal returns the elements (i, i+offset) of dimensions dim1 and dim2,
// as torch.diagonal(input, offset, dim1, dim2): both dimensions are removed
// and the diagonal is appended as the last one (offset > 0 above the main
// diagonal, < 0 below; empty when it lies outside). It is one Gather that
// picks one element per line, so its gradient is one fused elementwise op.
func (t *Tensor) Diagonal(offset, dim1, dim2 int) *Tensor {
	t.check("Diagonal")
	a, b := normAxis("Diagonal", dim1, t.Dim()), normAxis("Diagonal", dim2, t.Dim())
	if a == b {
		usage("Diagonal", "dimensions %d and %d are the same", dim1, dim2)
	}
	x := t
	if offset >= 0 {
		x = x.Narrow(b, min(offset, x.shape[b]), max(x.shape[b]-offset, 0))
	} else {
		x = x.Narrow(a, min(-offset, x.shape[a]), max(x.shape[a]+offset, 0))
	}
	n := min(x.shape[a], x.shape[b])
	x = x.Narrow(a, 0, n).Narrow(b, 0, n)
	// Along b pick, for position i of a, element i.
	ishape := slices.Repeat([]int{1}, x.Dim())
	ishape[a] = n
	shape := slices.Clone(x.shape)
	shape[b] = 1
	d := x.Gather(b, positions(t.n.dev, n).Reshape(ishape...).Expand(shape...)).Squeeze(b)
	if b < a {
		a-- // a moved down when b was removed
	}
	perm := make([]int, 0, d.Dim())
	for i := range d.Dim() {
		if i != a {
			perm = append(perm, i)
		}
	}
	return d.Permute(append(perm, a)...)
}
