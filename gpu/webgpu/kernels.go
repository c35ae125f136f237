//go:build cgo

package webgpu

import (
	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// run encodes a kernel with enc and records it, under the device lock.
func (d *Device) run(enc func() (*gpu.Launch, error)) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	l, err := enc()
	if err != nil {
		return err
	}
	return d.record(l)
}

// Elementwise runs a fused elementwise program, in slabs when its views
// span more than one binding.
func (d *Device) Elementwise(k *device.ElementwiseKernel) error {
	return d.runSplit(0, func(device.Buffer) ([]*gpu.Launch, error) { return gpu.EncodeElementwiseSlabs(k, d.target) })
}

// runSplit runs a kernel that may need scratch memory: bytes of it (none
// when 0), freed once the launches are done; encode returns the launches
// in order.
func (d *Device) runSplit(bytes int64, encode func(scratch device.Buffer) ([]*gpu.Launch, error)) error {
	var scratch device.Buffer
	if bytes > 0 {
		b, err := d.Alloc(bytes)
		if err != nil {
			return err
		}
		defer d.Free(b) // destroyed once the queue is idle
		scratch = b
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	ls, err := encode(scratch)
	if err != nil {
		return err
	}
	for _, l := range ls {
		if err := d.record(l); err != nil {
			return err
		}
	}
	return nil
}

// Reduce runs a reduction with prologue and epilogue; a long one runs in
// two launches through scratch memory.
func (d *Device) Reduce(k *device.ReduceKernel) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return d.runSplit(gpu.ReduceScratchBytes(k, d.target), func(s device.Buffer) ([]*gpu.Launch, error) {
		return gpu.EncodeReduceSplit(k, d.target, s)
	})
}

// MatMul runs a batched matrix product with epilogue; a long depth runs in
// two launches through scratch memory.
func (d *Device) MatMul(k *device.MatMulKernel) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return d.runSplit(gpu.MatMulScratchBytes(k, d.target), func(s device.Buffer) ([]*gpu.Launch, error) {
		return gpu.EncodeMatMulSplit(k, d.target, s)
	})
}

// Conv runs a convolution (forward or backward) with epilogue; a long
// depth runs in two launches through scratch memory.
func (d *Device) Conv(k *device.ConvKernel) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return d.runSplit(gpu.ConvScratchBytes(k, d.target), func(s device.Buffer) ([]*gpu.Launch, error) {
		return gpu.EncodeConvSplit(k, d.target, s)
	})
}

// Pool runs max or average pooling, forward or backward, in slabs when its
// views span more than one binding.
func (d *Device) Pool(k *device.PoolKernel) error {
	return d.runSplit(0, func(device.Buffer) ([]*gpu.Launch, error) { return gpu.EncodePoolSlabs(k, d.target) })
}

// Gather runs torch.gather, in slabs when its views span more than one
// binding; an index out of range is reported by this call
// or a later Read or Sync.
func (d *Device) Gather(k *device.GatherKernel) error {
	return d.runIndexed(func(st gpu.StatusTarget) ([]*gpu.Launch, error) { return gpu.EncodeGatherSlabs(k, d.target, st) })
}

// Scatter runs torch.scatter_add_ in place, in slabs when its views span
// more than one binding; an index out of range adds nothing and is reported by this call or a later Read or Sync.
func (d *Device) Scatter(k *device.ScatterKernel) error {
	return d.runIndexed(func(st gpu.StatusTarget) ([]*gpu.Launch, error) { return gpu.EncodeScatterSlabs(k, d.target, st) })
}

// Copy copies one view into another.
func (d *Device) Copy(k *device.CopyKernel) error {
	return d.runSplit(0, func(device.Buffer) ([]*gpu.Launch, error) { return gpu.EncodeCopySlabs(k, d.target) })
}

// runIndexed is run for kernels that report errors in a status slot: their
// launches (the slabs of one kernel) share the slot, which the launches
// carrying a StatusUse register.
func (d *Device) runIndexed(enc func(gpu.StatusTarget) ([]*gpu.Launch, error)) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	slot, err := d.status.slot(d)
	if err != nil {
		return err
	}
	ls, err := enc(gpu.StatusTarget{Buf: d.status.buf, Slot: slot})
	if err != nil {
		return err
	}
	for _, l := range ls {
		if err := d.record(l); err != nil {
			return err
		}
		if l.Workgroups > 0 && l.Status != nil {
			d.status.uses = append(d.status.uses, *l.Status)
		}
	}
	return nil
}

// Softmax runs a softmax or log-softmax over the rows of the last
// dimension, one workgroup per row, in slabs when its views span more than
// one binding.
func (d *Device) Softmax(k *device.SoftmaxKernel) error {
	return d.runSplit(0, func(device.Buffer) ([]*gpu.Launch, error) { return gpu.EncodeSoftmaxSlabs(k, d.target) })
}

// SoftmaxBackward runs the gradient of a softmax or log-softmax over the
// rows of the last dimension, as Softmax runs the softmax.
func (d *Device) SoftmaxBackward(k *device.SoftmaxBackwardKernel) error {
	return d.runSplit(0, func(device.Buffer) ([]*gpu.Launch, error) { return gpu.EncodeSoftmaxBackwardSlabs(k, d.target) })
}

// Normalize runs a layer normalization of the rows of the last dimension
// (without its affine part), rows shared by workgroups as Softmax shares
// them.
func (d *Device) Normalize(k *device.NormalizeKernel) error {
	return d.runSplit(0, func(device.Buffer) ([]*gpu.Launch, error) { return gpu.EncodeNormalizeSlabs(k, d.target) })
}

// NormalizeBackward runs the gradient of a row normalization, as
// Normalize runs the normalization.
func (d *Device) NormalizeBackward(k *device.NormalizeBackwardKernel) error {
	return d.runSplit(0, func(device.Buffer) ([]*gpu.Launch, error) { return gpu.EncodeNormalizeBackwardSlabs(k, d.target) })
}

// The device has the optional one-pass softmax and normalization row
// kernels.
var (
	_ device.RowSoftmaxer     = (*Device)(nil)
	_ device.RowSoftmaxGrader = (*Device)(nil)
	_ device.RowNormalizer    = (*Device)(nil)
)
