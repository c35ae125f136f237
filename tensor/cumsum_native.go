package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// nativeCumsum returns the running sums of x (Float32, Float64, Int32 or
// Int64) along axis a by the device's running-sum kernel, or nil when op is
// not Cumsum, the device has no such kernel or the axis is empty. The
// kernel sums along the last dimension, so x is read transposed and the
// result is a transposed view.
func nativeCumsum(op string, x *Tensor, a int) *Tensor {
	d := x.n.dev
	if _, ok := d.raw.(device.Cumsummer); !ok || !nativeScan || op != "Cumsum" || x.shape[a] == 0 {
		return nil
	}
	xt := x.Transpose(a, -1)
	d.mu.Lock()
	n := d.newNode(kindCumsum, xt.n.dtype, slices.Clone(xt.shape), []src{{n: xt.n, v: xt.view()}})
	res := whole(n)
	d.mu.Unlock()
	return recordGrad(opCumsum, res, []*Tensor{xt}, nil).Transpose(a, -1)
}

// runCumsum launches a running sum.
func (d *Device) runCumsum(n *node) error {
	vx, err := d.realizeSrc(n.srcs[0])
	if err != nil {
		return err
	}
	blk, err := d.alloc(n.dtype, n.numel())
	if err != nil {
		return err
	}
	k := device.CumsumKernel{X: vx, Out: device.Contiguous(blk.Buf, n.dtype, 0, n.shape)}
	if err := d.launch("cumsum", "cumsum", []string{"cumsum"}, 1, 1, func() error { return d.raw.(device.Cumsummer).Cumsum(&k) }); err != nil {
		d.pool.Free(blk)
		return err
	}
	n.block = blk
	return nil
}
