package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// PoolOptions are the parameters of a pooling window. Kernel is required;
// Stride defaults to Kernel, Padding to 0, Dilation to 1 (max pooling only);
// one value applies to every spatial dimension. CeilMode is PyTorch's
// ceil_mode: the output size rounds up, keeping a last window that starts
// inside the input or its left padding.
type PoolOptions struct {
	Kernel, Stride, Padding, Dilation []int
	CountExcludePad                   bool // average pooling: divide by the unpadded window size
	CeilMode                          bool
}

// poolAttrs are the parameters of a pool node.
type poolAttrs struct {
	op          device.PoolOp
	backward    bool
	adaptive    bool
	includePad  bool
	geom        device.ConvGeometry
	wantIndices bool
	// input and inputView are what a forward pool read (its sources go
	// once it is computed): the ReLU gradient rule looks for its own output
	// here (maskedMaxPoolGrad).
	input     *node
	inputView view
}

// MaxPool1d takes the maximum over windows of [N, C, L]
// (torch.nn.functional.max_pool1d).
func (t *Tensor) MaxPool1d(o PoolOptions) *Tensor { return t.poolNd(opMaxPool1d, device.PoolMax, 1, o) }

// MaxPool2d takes the maximum over windows of [N, C, H, W]
// (torch.nn.functional.max_pool2d).
func (t *Tensor) MaxPool2d(o PoolOptions) *Tensor { return t.poolNd(opMaxPool2d, device.PoolMax, 2, o) }

// MaxPool3d takes the maximum over windows of [N, C, D, H, W]
// (torch.nn.functional.max_pool3d).
func (t *Tensor) MaxPool3d(o PoolOptions) *Tensor { return t.poolNd(opMaxPool3d, device.PoolMax, 3, o) }

// AvgPool1d averages over windows of [N, C, L] (torch.nn.functional.avg_pool1d).
func (t *Tensor) AvgPool1d(o PoolOptions) *Tensor { return t.poolNd(opAvgPool1d, device.PoolAvg, 1, o) }

// AvgPool2d averages over windows of [N, C, H, W] (torch.nn.functional.avg_pool2d).
func (t *Tensor) AvgPool2d(o PoolOptions) *Tensor { return t.poolNd(opAvgPool2d, device.PoolAvg, 2, o) }

// AvgPool3d averages over windows of [N, C, D, H, W]
// (torch.nn.functional.avg_pool3d).
func (t *Tensor) AvgPool3d(o PoolOptions) *Tensor { return t.poolNd(opAvgPool3d, device.PoolAvg, 3, o) }

// poolNd records the nd-dimensional windowed pooling op (of kind) over t.
func (t *Tensor) poolNd(op gradOp, kind device.PoolOp, nd int, o PoolOptions) *Tensor {
	name := op.String()
	t.check(name)
	if t.Dim() != nd+2 {
		usage(name, "needs [N, C] and %d spatial dimensions, got %v", nd, t.shape)
	}
	if len(o.Kernel) == 0 {
		usage(name, "kernel size required")
	}
	k := spatial(name, "kernel", o.Kernel, nd, 1)
	stride := o.Stride
	if len(stride) == 0 {
		stride = k
	}
	g := device.ConvGeometry{
		N: t.shape[0], C: t.shape[1], O: t.shape[1], Groups: t.shape[1],
		In: slices.Clone(t.shape[2:]), Kernel: k,
		Stride:   spatial(name, "stride", stride, nd, 1),
		Padding:  spatial(name, "padding", o.Padding, nd, 0),
		Dilation: spatial(name, "dilation", o.Dilation, nd, 1),
	}
	g.Out = make([]int, nd)
	for i := range nd {
		if g.Padding[i]*2 > g.Kernel[i] {
			usage(name, "padding %v must be at most half the kernel %v", g.Padding, g.Kernel)
		}
		var ok bool
		if g.Out[i], ok = convOutSize(g.In[i], g.Kernel[i], g.Stride[i], g.Padding[i], g.Dilation[i]); !ok {
			usage(name, "window %v (stride %v, padding %v) does not fit input %v", g.Kernel, g.Stride, g.Padding, t.shape)
		}
		if o.CeilMode {
			g.Out[i] = ceilOutSize(g, i)
		}
	}
	checkExtent(name, append([]int{g.N, g.C}, g.Out...))
	a := poolAttrs{op: kind, includePad: !o.CountExcludePad, geom: g, wantIndices: kind == device.PoolMax && t.recordsGrad()}
	if o.CeilMode {
		return ceilPool(op, a, t)
	}
	return poolForward(op, a, t)
}

// AdaptiveAvgPool2d averages [N, C, H, W] over the windows that divide it
// into outH × outW cells.
func (t *Tensor) AdaptiveAvgPool2d(outH, outW int) *Tensor {
	t.check("AdaptiveAvgPool2d")
	if t.Dim() != 4 || outH < 1 || outW < 1 {
		usage("AdaptiveAvgPool2d", "needs [N, C, H, W] and positive output size, got %v and %dx%d", t.shape, outH, outW)
	}
	g := device.ConvGeometry{
		N: t.shape[0], C: t.shape[1], O: t.shape[1], Groups: t.shape[1],
		In: slices.Clone(t.shape[2:]), Out: []int{outH, outW}, Kernel: []int{1, 1},
		Stride: []int{1, 1}, Padding: []int{0, 0}, Dilation: []int{1, 1},
	}
	return poolForward(opAdaptiveAvgPool2d, poolAttrs{op: device.PoolAvg, adaptive: true, includePad: true, geom: g}, t)
}

// poolForward records the forward pooling op over t (as Float32) and attaches
// op's backward record, whose parameter is the pooling node.
func poolForward(op gradOp, a poolAttrs, t *Tensor) *Tensor {
	x := t.asFloat32()
	res := poolNode(a, x, nil)
	return recordGrad(op, res, []*Tensor{x}, res.n)
}

// poolNode records a pooling node with no backward record; fwd is the
// forward node whose winner indices a max-pool backward reads.
func poolNode(a poolAttrs, x *Tensor, fwd *node) *Tensor {
	x = x.asFloat32()
	d := x.n.dev
	g := a.geom
	shape := append([]int{g.N, g.C}, g.Out...)
	if a.backward {
		shape = append([]int{g.N, g.C}, g.In...)
	}
	srcs := []src{{n: x.n, v: x.view()}}
	if !a.backward {
		a.input, a.inputView = x.n, x.view()
	}
	if fwd != nil {
		srcs = append(srcs, src{n: fwd, v: contiguousView(fwd.shape)})
	}
	d.mu.Lock()
	n := d.newNode(kindPool, Float32, shape, srcs)
	n.attrs = a
	res := whole(n)
	d.mu.Unlock()
	return res
}

// runPool launches a pooling kernel.
func (d *Device) runPool(n *node) error {
	a := n.attrs.(poolAttrs)
	vx, err := d.realizeSrc(n.srcs[0])
	if err != nil {
		return err
	}
	blk, err := d.alloc(Float32, n.numel())
	if err != nil {
		return err
	}
	k := device.PoolKernel{
		Op: a.op, Backward: a.backward, Adaptive: a.adaptive, CountIncludePad: a.includePad,
		Geom: a.geom, X: vx, Out: device.Contiguous(blk.Buf, Float32, 0, n.shape),
	}
	g := a.geom
	outShape := append([]int{g.N, g.C}, g.Out...)
	switch {
	case a.backward && a.op == device.PoolMax:
		fwd := n.srcs[1].n
		if err := d.realize(fwd); err != nil {
			d.pool.Free(blk)
			return err
		}
		k.Indices = device.Contiguous(fwd.extra.Buf, Int32, 0, outShape)
	case !a.backward && a.wantIndices:
		ib, err := d.alloc(Int32, device.NumElements(outShape))
		if err != nil {
			d.pool.Free(blk)
			return err
		}
		n.extra = ib
		k.Indices = device.Contiguous(ib.Buf, Int32, 0, outShape)
	}
	err = d.launch("pool", "pool", []string{"pool"}, 1, 1, func() error { return d.raw.Pool(&k) })
	if err != nil {
		d.pool.Free(blk)
		return err
	}
	n.block = blk
	return nil
}
