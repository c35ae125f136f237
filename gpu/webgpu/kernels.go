//go:build cgo

package webgpu

import (
	"fmt"

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

// Elementwise runs a fused elementwise program.
func (d *Device) Elementwise(k *device.ElementwiseKernel) error {
	return d.run(func() (*gpu.Launch, error) { return gpu.EncodeElementwise(k, d.target) })
}

// Reduce runs a reduction with prologue and epilogue.
func (d *Device) Reduce(k *device.ReduceKernel) error { return errTODO("reduce") }

// MatMul runs a batched matrix product with epilogue.
func (d *Device) MatMul(k *device.MatMulKernel) error { return errTODO("matmul") }

// Conv runs a convolution with epilogue.
func (d *Device) Conv(k *device.ConvKernel) error { return errTODO("conv") }

// Pool runs pooling.
func (d *Device) Pool(k *device.PoolKernel) error { return errTODO("pool") }

// Gather runs torch.gather.
func (d *Device) Gather(k *device.GatherKernel) error { return errTODO("gather") }

// Scatter runs torch.scatter_add_.
func (d *Device) Scatter(k *device.ScatterKernel) error { return errTODO("scatter") }

// Copy copies one view into another.
func (d *Device) Copy(k *device.CopyKernel) error { return errTODO("copy") }

func errTODO(k string) error { return fmt.Errorf("webgpu: %s not yet wired", k) }
