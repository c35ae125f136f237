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

// runSoftmax computes a softmax row node with the device's row kernel.
func (d *Device) runSoftmax(n *node) error {
	in, err := d.realizeSrc(n.srcs[0])
	if err != nil {
		return err
	}
	blk, err := d.alloc(n.dtype, n.numel())
	if err != nil {
		return err
	}
	k := device.SoftmaxKernel{In: in, Out: device.Contiguous(blk.Buf, n.dtype, 0, n.shape), Log: n.attrs.(softmaxAttrs).log}
	op := "softmax"
	if k.Log {
		op = "log_softmax"
	}
	err = d.launch("softmax", "softmax", []string{op}, 1, 1, func() error { return d.raw.(device.RowSoftmaxer).Softmax(&k) })
	if err != nil {
		d.pool.Free(blk)
		return err
	}
	n.block = blk
	return nil
}
