package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// rowAttrs are the parameters of a row kernel's node: softmax or
// log-softmax, and a normalization's epsilon.
type rowAttrs struct {
	log bool
	eps float64
}

// minRowKernelLen is the shortest row the row kernels take: shorter rows
// are left to the composed kernels, which work across rows and so avoid a
// row kernel's fixed cost per row (docs/cpu-speed.md, "Row kernels,
// measured").
const minRowKernelLen = 32

// rowNode returns a Float32 node of kind (one of the row kernels' kinds)
// over the Float32 tensors ins, which share a shape with a last dimension of
// at least minRowKernelLen, or nil where the device lacks the kernel (has
// reports whether it has it), the tensors do not fit it, or there are no
// rows.
func rowNode(kind nodeKind, attrs rowAttrs, has bool, ins ...*Tensor) *Tensor {
	shape := ins[0].shape
	if !has || len(shape) == 0 || shape[len(shape)-1] < minRowKernelLen || device.NumElements(shape) == 0 {
		return nil
	}
	for _, t := range ins {
		if t.DType() != Float32 || !slices.Equal(t.shape, ins[0].shape) {
			return nil
		}
	}
	d := ins[0].n.dev
	srcs := make([]src, len(ins))
	for i, t := range ins {
		srcs[i] = src{n: t.n, v: t.view()}
	}
	d.mu.Lock()
	n := d.newNode(kind, Float32, slices.Clone(ins[0].shape), srcs)
	n.attrs = attrs
	res := whole(n)
	d.mu.Unlock()
	return res
}

// rowSoftmax returns the softmax (or log-softmax) of x along its last axis
// by the device's row kernel, or nil (see rowNode).
func rowSoftmax(x *Tensor, log bool) *Tensor {
	_, has := x.n.dev.raw.(device.RowSoftmaxer)
	return rowNode(kindSoftmax, rowAttrs{log: log}, has, x)
}

// rowSoftmaxGrad returns the gradient of a softmax's (log-softmax's with
// log) input along the last axis from its output y and that output's
// gradient g by the device's row kernel, or nil (see rowNode).
func rowSoftmaxGrad(y, g *Tensor, axis int, log bool) *Tensor {
	_, has := y.n.dev.raw.(device.RowSoftmaxGrader)
	return rowNode(kindSoftmaxGrad, rowAttrs{log: log}, has && axis == y.Dim()-1, y, g)
}

// rowNormalize returns x normalized along its last axis, (x − mean) /
// sqrt(var + eps), by the device's row kernel, or nil (see rowNode).
func rowNormalize(x *Tensor, eps float64) *Tensor {
	_, has := x.n.dev.raw.(device.RowNormalizer)
	return rowNode(kindNormalize, rowAttrs{eps: eps}, has, x)
}

// rowNormalizeGrad returns the gradient of rowNormalize's input x for the
// output gradient g, or nil (see rowNode).
func rowNormalizeGrad(x, g *Tensor, eps float64) *Tensor {
	_, has := x.n.dev.raw.(device.RowNormalizer)
	return rowNode(kindNormalizeGrad, rowAttrs{eps: eps}, has, x, g)
}

// runRows computes a row kernel's node.
func (d *Device) runRows(n *node) error {
	var views [2]device.View
	for i, s := range n.srcs {
		v, err := d.realizeSrc(s)
		if err != nil {
			return err
		}
		views[i] = v
	}
	blk, err := d.alloc(n.dtype, n.numel())
	if err != nil {
		return err
	}
	out := device.Contiguous(blk.Buf, n.dtype, 0, n.shape)
	a := n.attrs.(rowAttrs)
	op := "softmax"
	if a.log {
		op = "log_softmax"
	}
	var run func() error
	switch n.kind {
	case kindSoftmax:
		k := device.SoftmaxKernel{In: views[0], Out: out, Log: a.log}
		run = func() error { return d.raw.(device.RowSoftmaxer).Softmax(&k) }
	case kindSoftmaxGrad:
		op += "_backward"
		k := device.SoftmaxBackwardKernel{Y: views[0], G: views[1], Out: out, Log: a.log}
		run = func() error { return d.raw.(device.RowSoftmaxGrader).SoftmaxBackward(&k) }
	case kindNormalize:
		op = "normalize"
		k := device.NormalizeKernel{In: views[0], Out: out, Eps: a.eps}
		run = func() error { return d.raw.(device.RowNormalizer).Normalize(&k) }
	default:
		op = "normalize_backward"
		k := device.NormalizeBackwardKernel{X: views[0], G: views[1], Out: out, Eps: a.eps}
		run = func() error { return d.raw.(device.RowNormalizer).NormalizeBackward(&k) }
	}
	if err := d.launch(op, "rows", []string{op}, len(n.srcs), 1, run); err != nil {
		d.pool.Free(blk)
		return err
	}
	n.block = blk
	return nil
}
