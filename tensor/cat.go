package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/internal/checked"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// Cat concatenates tensors of equal shape except along dim.
func Cat(dim int, ts ...*Tensor) *Tensor {
	if len(ts) == 0 {
		usage("Cat", "no tensors")
	}
	ts[0].check("Cat")
	d := ts[0].n.dev
	sameDevice("Cat", d, ts...)
	rank := ts[0].Dim()
	if rank == 0 {
		usage("Cat", "cannot concatenate 0-d tensors; use Stack")
	}
	dim = normAxis("Cat", dim, rank)
	shape := slices.Clone(ts[0].shape)
	shape[dim] = 0
	dt := ts[0].DType()
	for _, t := range ts {
		if t.Dim() != rank {
			usage("Cat", "tensors of different rank: %v and %v", ts[0].shape, t.shape)
		}
		for i := range rank {
			if i != dim && t.shape[i] != ts[0].shape[i] {
				usage("Cat", "shapes %v and %v differ outside dimension %d", ts[0].shape, t.shape, dim)
			}
		}
		var ok bool
		if shape[dim], ok = checked.Add(shape[dim], t.shape[dim]); !ok {
			usage("Cat", "dimension %d of the result overflows", dim)
		}
		dt = promote(dt, t.DType())
	}
	checkExtent("Cat", shape)
	if v, ok := tiledView(dim, dt, shape, ts); ok {
		return v
	}
	starts := make([][]int, len(ts))
	at := 0
	for i, t := range ts {
		starts[i] = make([]int, rank)
		starts[i][dim] = at
		at += t.shape[dim]
	}
	return place(d, dt, shape, ts, starts)
}

// placeAttrs are the parameters of a node assembled from parts (kindCat):
// where each part's first element lands in the result.
type placeAttrs struct{ starts [][]int }

// place returns a tensor of shape and type dt assembled from parts, part i
// copied to the region starting at starts[i] (one start per axis); the
// regions must tile the result. Each part's gradient is its region of the
// result's.
func place(d *Device, dt DType, shape []int, parts []*Tensor, starts [][]int) *Tensor {
	srcs := make([]src, len(parts))
	in := make([]*Tensor, len(parts))
	for i, t := range parts {
		t = t.Cast(dt)
		in[i] = t
		srcs[i] = src{n: t.n, v: t.view()}
	}
	d.mu.Lock()
	n := d.newNode(kindCat, dt, shape, srcs)
	n.attrs = placeAttrs{starts: starts}
	res := whole(n)
	d.mu.Unlock()
	return recordGrad(opCat, res, in, starts)
}

// Stack joins tensors of one shape along a new dimension dim.
func Stack(dim int, ts ...*Tensor) *Tensor {
	if len(ts) == 0 {
		usage("Stack", "no tensors")
	}
	ts[0].check("Stack")
	dim = normAxis("Stack", dim, ts[0].Dim()+1)
	us := make([]*Tensor, len(ts))
	for i, t := range ts {
		t.check("Stack")
		if !slices.Equal(t.shape, ts[0].shape) {
			usage("Stack", "shapes %v and %v differ", ts[0].shape, t.shape)
		}
		us[i] = t.Unsqueeze(dim)
	}
	return Cat(dim, us...)
}

// runCat copies each part into its region of the result.
func (d *Device) runCat(n *node) error {
	starts := n.attrs.(placeAttrs).starts
	blk, err := d.alloc(n.dtype, n.numel())
	if err != nil {
		return err
	}
	out := device.Contiguous(blk.Buf, n.dtype, 0, n.shape)
	for i, s := range n.srcs {
		dst := out
		dst.Shape = slices.Clone(s.v.shape)
		dst.Offset = 0
		for a, at := range starts[i] {
			dst.Offset += at * out.Strides[a]
		}
		if device.NumElements(dst.Shape) == 0 {
			continue
		}
		s, dst = throughCopy(s, dst)
		vs, err := d.realizeSrc(s)
		if err != nil {
			d.pool.Free(blk)
			return err
		}
		k := device.CopyKernel{Dst: dst, Src: vs}
		err = d.launch("copy", "copy", []string{"cat"}, 1, 1, func() error { return d.raw.Copy(&k) })
		if err != nil {
			d.pool.Free(blk)
			return err
		}
	}
	n.block = blk
	return nil
}

// throughCopy returns the source a Cat part s is copied from and its
// destination dst, re-expressed in that source's shape. A part that is a
// pending copy into contiguous order (Contiguous, or a Reshape that could not
// be a view: the gradient of attention heads merged back into [batch,
// length, features]) read whole is taken from what it copies, so that it is
// not stored first and then copied again; the copy stays pending for any
// other reader. Any other part, or any part with fusion off, is returned as
// it is.
func throughCopy(s src, dst device.View) (src, device.View) {
	c := s.n
	if !Fusion() || c.block != nil || c.err != nil || c.kind != kindElementwise || c.op != device.OpCast || len(c.srcs) != 1 ||
		c.srcs[0].n.dtype != c.dtype || !s.v.equal(contiguousView(s.v.shape)) || device.NumElements(s.v.shape) != c.numel() {
		return s, dst
	}
	in := c.srcs[0]
	st, ok := reshapeStrides(dst.Shape, dst.Strides, in.v.shape)
	if !ok {
		return s, dst
	}
	dst.Shape, dst.Strides = slices.Clone(in.v.shape), st
	return in, dst
}

// tiledView returns the concatenation of ts along dim (of shape and dtype
// dt) as a view when the parts are views of one node that lie next to each
// other along dim with equal strides, as the gradients of a projection's
// query, key and value heads do when one kernel wrote them interleaved: the
// result is then that node's elements, and no copy is needed. It declines
// when a part records a gradient (Cat's own rule splits it among the parts).
func tiledView(dim int, dt DType, shape []int, ts []*Tensor) (*Tensor, bool) {
	first := ts[0]
	if len(ts) < 2 || first.DType() != dt {
		return nil, false
	}
	next := first.offset
	for _, t := range ts {
		if t.n != first.n || t.offset != next || !slices.Equal(t.strides, first.strides) || t.requiresGrad() {
			return nil, false
		}
		next += t.shape[dim] * t.strides[dim]
	}
	d := first.n.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	return wrap(first.n, view{shape: shape, strides: slices.Clone(first.strides), offset: first.offset}), true
}
