package tensor

import (
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// gatherAttrs are the parameters of gather and scatter nodes.
type gatherAttrs struct{ axis int }

// Gather is torch.gather: out[i] = t[i with i[dim] replaced by index[i]],
// for an Int32 or Int64 index of t's rank; out has index's shape. An index out of range
// is reported as an error when the result is read.
func (t *Tensor) Gather(dim int, index *Tensor) *Tensor {
	t.check("Gather")
	index.check("Gather")
	sameDevice("Gather", t.n.dev, index)
	dim = normAxis("Gather", dim, t.Dim())
	if !isIndexType(index.DType()) || index.Dim() != t.Dim() {
		usage("Gather", "index must be Int32 or Int64 of rank %d, got %s %v for input %v", t.Dim(), index.DType(), index.shape, t.shape)
	}
	index = index.index32()
	for i, s := range index.shape {
		if i != dim && s > t.shape[i] {
			usage("Gather", "index %v larger than input %v outside dimension %d", index.shape, t.shape, dim)
		}
	}
	d := t.n.dev
	v := t.view()
	// Dimensions other than dim are read only over index's extent.
	v.shape = slices.Clone(v.shape)
	for i := range v.shape {
		if i != dim {
			v.shape[i] = index.shape[i]
		}
	}
	d.mu.Lock()
	n := d.newNode(kindGather, t.n.dtype, slices.Clone(index.shape), []src{{n: t.n, v: v}, {n: index.n, v: index.view()}})
	n.attrs = gatherAttrs{axis: dim}
	res := whole(n)
	d.mu.Unlock()
	return recordGrad(opGather, res, []*Tensor{t, index}, gatherParams{dim: dim, inShape: t.Shape()})
}

// gatherParams are what Gather's gradient needs.
type gatherParams struct {
	dim     int
	inShape []int
}

// IndexSelect picks the entries index (1-D Int32 or Int64) along dim.
func (t *Tensor) IndexSelect(dim int, index *Tensor) *Tensor {
	t.check("IndexSelect")
	index.check("IndexSelect")
	dim = normAxis("IndexSelect", dim, t.Dim())
	if index.Dim() != 1 || !isIndexType(index.DType()) {
		usage("IndexSelect", "index must be 1-D Int32 or Int64, got %s %v", index.DType(), index.shape)
	}
	shape := slices.Clone(t.shape)
	shape[dim] = index.shape[0]
	ishape := make([]int, t.Dim())
	for i := range ishape {
		ishape[i] = 1
	}
	ishape[dim] = index.shape[0]
	return t.Gather(dim, index.Reshape(ishape...).Expand(shape...))
}

// ScatterAdd returns a Float32 tensor of shape with src added at the
// positions index names along dim (torch.Tensor.scatter_add_ on zeros).
func ScatterAdd(shape []int, dim int, index, srcT *Tensor) *Tensor {
	index.check("ScatterAdd")
	srcT.check("ScatterAdd")
	dim = normAxis("ScatterAdd", dim, len(shape))
	if !isIndexType(index.DType()) || !slices.Equal(index.shape, srcT.shape) || index.Dim() != len(shape) {
		usage("ScatterAdd", "index (%s %v, Int32 or Int64) and src %v must match, with rank of %v", index.DType(), index.shape, srcT.shape, shape)
	}
	index = index.index32()
	srcT = srcT.asFloat32()
	d := srcT.n.dev
	d.mu.Lock()
	n := d.newNode(kindScatter, Float32, slices.Clone(shape), []src{
		{n: index.n, v: index.view()}, {n: srcT.n, v: srcT.view()},
	})
	n.attrs = gatherAttrs{axis: dim}
	res := whole(n)
	d.mu.Unlock()
	return recordGrad(opScatterAdd, res, []*Tensor{nil, index, srcT}, gatherParams{dim: dim})
}

// runGather launches a gather.
func (d *Device) runGather(n *node) error {
	vs, err := d.realizeSrc(n.srcs[0])
	if err != nil {
		return err
	}
	vi, err := d.realizeSrc(n.srcs[1])
	if err != nil {
		return err
	}
	blk, err := d.alloc(n.dtype, n.numel())
	if err != nil {
		return err
	}
	k := device.GatherKernel{Axis: n.attrs.(gatherAttrs).axis, Src: vs, Index: vi, Out: device.Contiguous(blk.Buf, n.dtype, 0, n.shape)}
	err = d.launch("gather", "gather", []string{"gather"}, 2, 1, func() error { return d.raw.Gather(&k) })
	if err != nil {
		d.pool.Free(blk)
		return err
	}
	n.block = blk
	return nil
}

// runScatter zeroes the result and adds into it.
func (d *Device) runScatter(n *node) error {
	blk, err := d.alloc(Float32, n.numel())
	if err != nil {
		return err
	}
	out := device.Contiguous(blk.Buf, Float32, 0, n.shape)
	fill := device.ElementwiseKernel{Shape: n.shape, Program: constProgram(0), Outputs: []device.View{out}}
	if err := d.launch("elementwise", "elementwise", []string{"fill"}, 0, 1, func() error { return d.raw.Elementwise(&fill) }); err != nil {
		d.pool.Free(blk)
		return err
	}
	vi, err := d.realizeSrc(n.srcs[0])
	if err == nil {
		var vs device.View
		if vs, err = d.realizeSrc(n.srcs[1]); err == nil {
			k := device.ScatterKernel{Axis: n.attrs.(gatherAttrs).axis, Dst: out, Index: vi, Src: vs}
			err = d.launch("scatter", "scatter", []string{"scatter_add"}, 2, 1, func() error { return d.raw.Scatter(&k) })
		}
	}
	if err != nil {
		d.pool.Free(blk)
		return err
	}
	n.block = blk
	return nil
}

// constProgram stores the constant v.
func constProgram(v float64) device.Program {
	var b device.Builder
	b.Output(b.Const(v, Float32))
	return b.P
}

// isIndexType reports whether dt may index: Int32 or Int64, as PyTorch's
// int64 indices and labels.
func isIndexType(dt DType) bool { return dt == Int32 || dt == Int64 }

// index32 returns an index tensor as the Int32 the Gather and Scatter
// kernels read: an Int64 index is clamped to the int32 range first, so an
// index past it stays out of range (and is reported) instead of wrapping
// into range.
func (t *Tensor) index32() *Tensor {
	if t.n.dtype == Int32 {
		return t
	}
	d := t.n.dev
	return t.Maximum(FullOf(d, Int64, math.MinInt32)).Minimum(FullOf(d, Int64, math.MaxInt32)).Cast(Int32)
}
