//go:build cgo

package vulkan

import (
	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// The kernel kinds: package gpu validates and encodes each kernel into a
// launch of the kind's precompiled SPIR-V, which record adds to the current
// batch. Every method holds the device lock while encoding and recording.

// encodeAllAndRecord runs a kernel encoded as launches that each write
// (parts of) writes, such as the slabs of a split kernel.
func (d *Device) encodeAllAndRecord(encode func(gpu.Target) ([]*gpu.Launch, error), writes ...device.View) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	d.calls++
	ls, err := encode(d.target())
	if err != nil {
		return err
	}
	ws := d.writeBufs[:0]
	for _, v := range writes {
		if v.Buf != nil {
			ws = append(ws, v.Buf)
		}
	}
	for _, l := range ls {
		if err := d.record(l, ws...); err != nil {
			return err
		}
	}
	return nil
}

// encodeSplitAndRecord runs a kernel that may need scratch memory: bytes
// of it (none when 0), freed once the launches are done. encode returns
// the launches in order; each may write the scratch and the kernel's
// outputs (a kernel split into slabs writes its outputs slab by slab).
func (d *Device) encodeSplitAndRecord(bytes int64, encode func(gpu.Target, device.Buffer) ([]*gpu.Launch, error), writes ...device.View) error {
	var scratch device.Buffer
	if bytes > 0 {
		b, err := d.Alloc(bytes)
		if err != nil {
			return err
		}
		defer d.Free(b) // work recorded with it completes first
		scratch = b
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	d.calls++
	ls, err := encode(d.target(), scratch)
	if err != nil {
		return err
	}
	ws := d.writeBufs[:0]
	if scratch != nil {
		ws = append(ws, scratch)
	}
	for _, v := range writes {
		if v.Buf != nil {
			ws = append(ws, v.Buf)
		}
	}
	for _, l := range ls {
		if err := d.record(l, ws...); err != nil {
			return err
		}
	}
	return nil
}

// Elementwise runs a fused elementwise program, in slabs when its views
// span more than one binding.
func (d *Device) Elementwise(k *device.ElementwiseKernel) error {
	return d.encodeAllAndRecord(func(t gpu.Target) ([]*gpu.Launch, error) { return gpu.EncodeElementwiseSlabs(k, t) }, k.Outputs...)
}

// Reduce runs a reduction with prologue and epilogue; a long one runs in
// two launches through scratch memory.
func (d *Device) Reduce(k *device.ReduceKernel) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return d.encodeSplitAndRecord(gpu.ReduceScratchBytes(k, d.target()), func(t gpu.Target, s device.Buffer) ([]*gpu.Launch, error) {
		return gpu.EncodeReduceSplit(k, t, s)
	}, k.Outputs...)
}

// MatMul runs a batched matrix product with epilogue; a long depth runs in
// two launches through scratch memory.
func (d *Device) MatMul(k *device.MatMulKernel) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return d.encodeSplitAndRecord(gpu.MatMulScratchBytes(k, d.target()), func(t gpu.Target, s device.Buffer) ([]*gpu.Launch, error) {
		return gpu.EncodeMatMulSplit(k, t, s)
	}, k.Outputs...)
}

// Conv runs a convolution (forward or backward) with epilogue; a long
// depth runs in two launches through scratch memory.
func (d *Device) Conv(k *device.ConvKernel) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return d.encodeSplitAndRecord(gpu.ConvScratchBytes(k, d.target()), func(t gpu.Target, s device.Buffer) ([]*gpu.Launch, error) {
		return gpu.EncodeConvSplit(k, t, s)
	}, k.Outputs...)
}

// Pool runs max or average pooling, forward or backward, in slabs when its
// views span more than one binding.
func (d *Device) Pool(k *device.PoolKernel) error {
	writes := []device.View{k.Out}
	if !k.Backward {
		writes = append(writes, k.Indices)
	}
	return d.encodeAllAndRecord(func(t gpu.Target) ([]*gpu.Launch, error) { return gpu.EncodePoolSlabs(k, t) }, writes...)
}

// Gather runs torch.gather, in slabs when its views span more than one
// binding. An out-of-range index is clamped and reported by the next Sync
// or Read.
func (d *Device) Gather(k *device.GatherKernel) error {
	return d.encodeAllAndRecord(func(t gpu.Target) ([]*gpu.Launch, error) {
		st, err := d.statusTarget()
		if err != nil {
			return nil, err
		}
		return gpu.EncodeGatherSlabs(k, t, st)
	}, k.Out)
}

// Scatter runs torch.scatter_add_ in place, in slabs when its views span
// more than one binding. An out-of-range index adds nothing and is
// reported by the next Sync or Read.
func (d *Device) Scatter(k *device.ScatterKernel) error {
	return d.encodeAllAndRecord(func(t gpu.Target) ([]*gpu.Launch, error) {
		st, err := d.statusTarget()
		if err != nil {
			return nil, err
		}
		return gpu.EncodeScatterSlabs(k, t, st)
	}, k.Dst)
}

// Copy copies one view into another, in slabs when its views span more
// than one binding.
func (d *Device) Copy(k *device.CopyKernel) error {
	return d.encodeAllAndRecord(func(t gpu.Target) ([]*gpu.Launch, error) { return gpu.EncodeCopySlabs(k, t) }, k.Dst)
}

// Softmax runs a softmax or log-softmax over the rows of the last
// dimension, one workgroup per row, in slabs when its views span more than
// one binding.
func (d *Device) Softmax(k *device.SoftmaxKernel) error {
	return d.encodeAllAndRecord(func(t gpu.Target) ([]*gpu.Launch, error) { return gpu.EncodeSoftmaxSlabs(k, t) }, k.Out)
}

// SoftmaxBackward runs the gradient of a softmax or log-softmax over the
// rows of the last dimension, as Softmax runs the softmax.
func (d *Device) SoftmaxBackward(k *device.SoftmaxBackwardKernel) error {
	return d.encodeAllAndRecord(func(t gpu.Target) ([]*gpu.Launch, error) { return gpu.EncodeSoftmaxBackwardSlabs(k, t) }, k.Out)
}

// Normalize runs a layer normalization of the rows of the last dimension
// (without its affine part), rows shared by workgroups as Softmax shares
// them.
func (d *Device) Normalize(k *device.NormalizeKernel) error {
	return d.encodeAllAndRecord(func(t gpu.Target) ([]*gpu.Launch, error) { return gpu.EncodeNormalizeSlabs(k, t) }, k.Out)
}

// NormalizeBackward runs the gradient of a row normalization, as
// Normalize runs the normalization.
func (d *Device) NormalizeBackward(k *device.NormalizeBackwardKernel) error {
	return d.encodeAllAndRecord(func(t gpu.Target) ([]*gpu.Launch, error) { return gpu.EncodeNormalizeBackwardSlabs(k, t) }, k.Out)
}

// The device has the optional one-pass softmax and normalization row
// kernels.
var (
	_ device.RowSoftmaxer     = (*Device)(nil)
	_ device.RowSoftmaxGrader = (*Device)(nil)
	_ device.RowNormalizer    = (*Device)(nil)
)
