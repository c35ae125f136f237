//go:build cgo

package vulkan

import (
	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// The kernel kinds: package gpu validates and encodes each kernel into a
// launch of the kind's precompiled SPIR-V, which record adds to the current
// batch. Every method holds the device lock while encoding and recording.

// encodeAndRecord runs one encoded kernel; writes are the buffers it writes.
func (d *Device) encodeAndRecord(encode func(gpu.Target) (*gpu.Launch, error), writes ...device.View) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	l, err := encode(d.target())
	if err != nil {
		return err
	}
	ws := d.writeBufs[:0]
	for _, v := range writes {
		if v.Buf != nil {
			ws = append(ws, v.Buf)
		}
	}
	return d.record(l, ws...)
}

// Elementwise runs a fused elementwise program.
func (d *Device) Elementwise(k *device.ElementwiseKernel) error {
	return d.encodeAndRecord(func(t gpu.Target) (*gpu.Launch, error) { return gpu.EncodeElementwise(k, t) }, k.Outputs...)
}

// Reduce runs a reduction with prologue and epilogue.
func (d *Device) Reduce(k *device.ReduceKernel) error {
	return d.encodeAndRecord(func(t gpu.Target) (*gpu.Launch, error) { return gpu.EncodeReduce(k, t) }, k.Outputs...)
}

// MatMul runs a batched matrix product with epilogue.
func (d *Device) MatMul(k *device.MatMulKernel) error {
	return d.encodeAndRecord(func(t gpu.Target) (*gpu.Launch, error) { return gpu.EncodeMatMul(k, t) }, k.Outputs...)
}

// Conv runs a convolution (forward or backward) with epilogue.
func (d *Device) Conv(k *device.ConvKernel) error {
	return d.encodeAndRecord(func(t gpu.Target) (*gpu.Launch, error) { return gpu.EncodeConv(k, t) }, k.Outputs...)
}

// Pool runs max or average pooling, forward or backward.
func (d *Device) Pool(k *device.PoolKernel) error {
	writes := []device.View{k.Out}
	if !k.Backward {
		writes = append(writes, k.Indices)
	}
	return d.encodeAndRecord(func(t gpu.Target) (*gpu.Launch, error) { return gpu.EncodePool(k, t) }, writes...)
}

// Gather runs torch.gather. An out-of-range index is clamped and reported
// by the next Sync or Read.
func (d *Device) Gather(k *device.GatherKernel) error {
	return d.encodeAndRecord(func(t gpu.Target) (*gpu.Launch, error) {
		st, err := d.statusTarget()
		if err != nil {
			return nil, err
		}
		return gpu.EncodeGather(k, t, st)
	}, k.Out)
}

// Scatter runs torch.scatter_add_ in place. An out-of-range index adds
// nothing and is reported by the next Sync or Read.
func (d *Device) Scatter(k *device.ScatterKernel) error {
	return d.encodeAndRecord(func(t gpu.Target) (*gpu.Launch, error) {
		st, err := d.statusTarget()
		if err != nil {
			return nil, err
		}
		return gpu.EncodeScatter(k, t, st)
	}, k.Dst)
}

// Copy copies one view into another.
func (d *Device) Copy(k *device.CopyKernel) error {
	return d.encodeAndRecord(func(t gpu.Target) (*gpu.Launch, error) { return gpu.EncodeCopy(k, t) }, k.Dst)
}
