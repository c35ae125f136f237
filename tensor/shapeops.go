package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Shape and layout operations composed of views, Cat and Where: they need
// no kernel of their own and their gradients follow from the parts'.

// opFlip is Flip, a view with negative strides.
var opFlip = defineGradOp("Flip")

func init() {
	opFlip.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Flip(c.node.params.([]int)...)) }
}

// Flip reverses the order of the elements along each of axes, as torch.flip.
// Unlike PyTorch, which copies, it is a view with negative strides.
func (t *Tensor) Flip(axes ...int) *Tensor {
	t.check("Flip")
	ax := normAxes("Flip", axes, t.Dim())
	if len(axes) == 0 {
		ax = nil // torch.flip with no dims flips nothing
	}
	v := t.view()
	v.strides = slices.Clone(v.strides)
	for _, a := range ax {
		if v.shape[a] > 1 {
			v.offset += (v.shape[a] - 1) * v.strides[a]
			v.strides[a] = -v.strides[a]
		}
	}
	return t.reView(opFlip, v, ax)
}

// Roll shifts the elements along each axes[i] by shifts[i] positions,
// wrapping around, as torch.roll with dims. Without axes the tensor is
// flattened, rolled by the one shift and given its shape back.
func (t *Tensor) Roll(shifts []int, axes ...int) *Tensor {
	t.check("Roll")
	if len(axes) == 0 {
		if len(shifts) != 1 {
			usage("Roll", "%d shifts without axes: give one shift to roll the flattened tensor", len(shifts))
		}
		return t.Reshape(-1).Roll(shifts, 0).Reshape(t.shape...)
	}
	if len(shifts) != len(axes) {
		usage("Roll", "%d shifts for %d axes", len(shifts), len(axes))
	}
	out := t
	for i, a := range axes {
		a = normAxis("Roll", a, t.Dim())
		n := t.shape[a]
		if n == 0 {
			continue
		}
		s := ((shifts[i] % n) + n) % n
		if s == 0 {
			continue
		}
		out = Cat(a, out.Narrow(a, n-s, s), out.Narrow(a, 0, n-s))
	}
	return out
}

// Repeat tiles the tensor reps[i] times along dimension i, as
// torch.Tensor.repeat: reps may have more entries than the tensor has
// dimensions (new leading dimensions), not fewer.
func (t *Tensor) Repeat(reps ...int) *Tensor {
	t.check("Repeat")
	if len(reps) < t.Dim() {
		usage("Repeat", "%d repeats %v for a %d-dimensional tensor %v: give at least one per dimension", len(reps), reps, t.Dim(), t.shape)
	}
	for _, r := range reps {
		if r < 0 {
			usage("Repeat", "negative repeat in %v", reps)
		}
	}
	lead := len(reps) - t.Dim() // new leading dimensions, of size one
	// Interleave a dimension of size one, broadcast to reps[i], before each.
	var ones, inter, final []int
	for i, r := range reps {
		s := 1
		if i >= lead {
			s = t.shape[i-lead]
		}
		ones = append(ones, 1, s)
		inter = append(inter, r, s)
		final = append(final, r*s)
	}
	checkExtent("Repeat", final)
	return t.Reshape(ones...).Expand(inter...).Reshape(final...)
}

// Tile repeats the tensor reps[i] times along dimension i, as torch.tile:
// with fewer reps than dimensions, reps is padded with leading ones.
func (t *Tensor) Tile(reps ...int) *Tensor {
	t.check("Tile")
	for len(reps) < t.Dim() {
		reps = append([]int{1}, reps...)
	}
	return t.Repeat(reps...)
}

// Split cuts the tensor along axis into pieces of size (the last may be
// smaller), as torch.split with an integer; the pieces are views.
func (t *Tensor) Split(size, axis int) []*Tensor {
	t.check("Split")
	a := normAxis("Split", axis, t.Dim())
	n := t.shape[a]
	if size <= 0 && !(size == 0 && n == 0) {
		usage("Split", "piece size %d must be positive", size)
	}
	if n == 0 {
		return []*Tensor{t}
	}
	var sizes []int
	for at := 0; at < n; at += size {
		sizes = append(sizes, min(size, n-at))
	}
	return t.SplitSizes(sizes, a)
}

// SplitSizes cuts the tensor along axis into pieces of the given sizes,
// which must add up to its size there, as torch.split with a list; the
// pieces are views.
func (t *Tensor) SplitSizes(sizes []int, axis int) []*Tensor {
	t.check("SplitSizes")
	a := normAxis("SplitSizes", axis, t.Dim())
	total := 0
	for _, s := range sizes {
		if s < 0 {
			usage("SplitSizes", "negative size in %v", sizes)
		}
		total += s
	}
	if total != t.shape[a] {
		usage("SplitSizes", "sizes %v add up to %d, dimension %d of %v has %d", sizes, total, a, t.shape, t.shape[a])
	}
	out := make([]*Tensor, len(sizes))
	at := 0
	for i, s := range sizes {
		out[i] = t.Narrow(a, at, s)
		at += s
	}
	return out
}

// Chunk cuts the tensor along axis into at most n pieces of ceil(size/n)
// elements, the last possibly smaller, as torch.chunk (which may return
// fewer than n pieces); the pieces are views.
func (t *Tensor) Chunk(n, axis int) []*Tensor {
	t.check("Chunk")
	if n <= 0 {
		usage("Chunk", "number of chunks %d must be positive", n)
	}
	a := normAxis("Chunk", axis, t.Dim())
	size := (t.shape[a] + n - 1) / n
	if size == 0 { // an empty dimension: torch returns n empty pieces
		out := make([]*Tensor, n)
		for i := range out {
			out[i] = t
		}
		return out
	}
	return t.Split(size, a)
}

// Unbind returns the slices along axis with that dimension removed, as
// torch.unbind; they are views.
func (t *Tensor) Unbind(axis int) []*Tensor {
	t.check("Unbind")
	a := normAxis("Unbind", axis, t.Dim())
	out := make([]*Tensor, t.shape[a])
	for i := range out {
		out[i] = t.Narrow(a, i, 1).Squeeze(a)
	}
	return out
}

// Select returns the slice at index i along axis with that dimension removed
// (a negative i counts from the end), as torch.select; it is a view.
func (t *Tensor) Select(axis, i int) *Tensor {
	t.check("Select")
	a := normAxis("Select", axis, t.Dim())
	n := t.shape[a]
	if i < -n || i >= n {
		usage("Select", "index %d out of range for dimension %d of %v", i, a, t.shape)
	}
	if i < 0 {
		i += n
	}
	return t.Narrow(a, i, 1).Squeeze(a)
}

// triangle keeps the elements of the last two dimensions whose column minus
// row is at least lo (lower=false) or at most lo (lower=true) and zeroes
// the others.
func (t *Tensor) triangle(op string, k int, lower bool) *Tensor {
	t.check(op)
	if t.Dim() < 2 {
		usage(op, "needs at least 2 dimensions, got %v", t.shape)
	}
	// Column minus row of each position of the last two dimensions, from a
	// column of row numbers and a row of column numbers broadcast against
	// each other, so that the mask is computed inside the kernel without a
	// division.
	r, c := t.shape[t.Dim()-2], t.shape[t.Dim()-1]
	diff := positions(t.n.dev, 1, c).Sub(positions(t.n.dev, r, 1))
	var keep *Tensor
	if lower {
		keep = diff.Le(diff.scalarLike(float64(k)))
	} else {
		keep = diff.Ge(diff.scalarLike(float64(k)))
	}
	return Where(keep, t, ZerosLike(t))
}

// Tril keeps the elements on and below the k-th diagonal of the last two
// dimensions and zeroes the rest, as torch.tril (k > 0 above the main
// diagonal, k < 0 below).
func (t *Tensor) Tril(k int) *Tensor { return t.triangle("Tril", k, true) }

// Triu keeps the elements on and above the k-th diagonal of the last two
// dimensions and zeroes the rest, as torch.triu.
func (t *Tensor) Triu(k int) *Tensor { return t.triangle("Triu", k, false) }

// MaskedFill returns t with value where the Bool mask (broadcast to t's
// shape) is true, as torch.Tensor.masked_fill; its gradient with respect to
// t is zero there.
func (t *Tensor) MaskedFill(mask *Tensor, value float64) *Tensor {
	t.check("MaskedFill")
	mask.check("MaskedFill")
	if mask.DType() != Bool {
		usage("MaskedFill", "mask must be Bool, got %s", mask.DType())
	}
	shape := broadcastShapes("MaskedFill", t.shape, mask.shape)
	if !slices.Equal(shape, t.shape) {
		usage("MaskedFill", "mask %v does not broadcast to the tensor's shape %v", mask.shape, t.shape)
	}
	return Where(mask, FullOf(t.n.dev, t.DType(), value, t.shape...), t)
}

// Outer is the outer product of two 1-D tensors, out[i][j] = t[i]*o[j], as
// torch.outer.
func (t *Tensor) Outer(o *Tensor) *Tensor {
	t.check("Outer")
	o.check("Outer")
	if t.Dim() != 1 || o.Dim() != 1 {
		usage("Outer", "needs two 1-D tensors, got %v and %v", t.shape, o.shape)
	}
	return t.Unsqueeze(1).Mul(o.Unsqueeze(0))
}

// positions returns the Int32 tensor of the given shape whose elements are
// their row-major positions 0, 1, ... (exact for every size, unlike
// Arange's Float32).
func positions(d *Device, shape ...int) *Tensor {
	checkExtent("positions", shape)
	d.mu.Lock()
	defer d.mu.Unlock()
	idx := d.newNode(kindElementwise, Int32, slices.Clone(shape), nil)
	idx.op = device.OpIndex
	idx.argType = Int32
	return whole(idx)
}
