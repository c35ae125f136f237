package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// softmaxAttrs are the parameters of a softmax row node.
type softmaxAttrs struct{ log bool }

// rowSoftmax returns the softmax (or log-softmax) of x along its last axis
// as one row kernel, or nil where the device has no such kernel or the
// rows are empty, leaving the caller to build it from three kernels. x is
// Float32.
func rowSoftmax(x *Tensor, log bool) *Tensor {
	d := x.n.dev
	if _, ok := d.raw.(device.RowSoftmaxer); !ok || device.NumElements(x.shape) == 0 {
		return nil
	}
	d.mu.Lock()
	n := d.newNode(kindSoftmax, Float32, slices.Clone(x.shape), []src{{n: x.n, v: x.view()}})
	n.attrs = softmaxAttrs{log: log}
	res := whole(n)
	d.mu.Unlock()
	return res
}

// rowSoftmaxGrad returns the gradient of a softmax's (log-softmax's with
// log) input along the last axis from its Float32 output y and that
// output's gradient g by the device's row kernel, or nil where the device
// has none or the types or axis do not fit it.
func rowSoftmaxGrad(y, g *Tensor, axis int, log bool) *Tensor {
	d := y.n.dev
	if _, ok := d.raw.(device.RowSoftmaxGrader); !ok || axis != y.Dim()-1 || y.DType() != Float32 || g.DType() != Float32 ||
		!slices.Equal(y.shape, g.shape) || device.NumElements(y.shape) == 0 {
		return nil
	}
	d.mu.Lock()
	n := d.newNode(kindSoftmaxGrad, Float32, slices.Clone(y.shape), []src{{n: y.n, v: y.view()}, {n: g.n, v: g.view()}})
	n.attrs = softmaxAttrs{log: log}
	res := whole(n)
	d.mu.Unlock()
	return res
}

// runSoftmax computes a softmax row node, or its gradient, with the
// device's row kernels.
func (d *Device) runSoftmax(n *node) error {
	views := make([]device.View, len(n.srcs))
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
	log := n.attrs.(softmaxAttrs).log
	op := "softmax"
	if log {
		op = "log_softmax"
	}
	if n.kind == kindSoftmaxGrad {
		k := device.SoftmaxBackwardKernel{Y: views[0], G: views[1], Out: out, Log: log}
		err = d.launch("softmax_backward", "softmax_backward", []string{op + "_backward"}, 2, 1, func() error { return d.raw.(device.RowSoftmaxGrader).SoftmaxBackward(&k) })
	} else {
		k := device.SoftmaxKernel{In: views[0], Out: out, Log: log}
		err = d.launch("softmax", "softmax", []string{op}, 1, 1, func() error { return d.raw.(device.RowSoftmaxer).Softmax(&k) })
	}
	if err != nil {
		d.pool.Free(blk)
		return err
	}
	n.block = blk
	return nil
}
