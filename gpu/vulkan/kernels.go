//go:build cgo

package vulkan

import (
	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// outputs returns the buffers of views.
func outputs(vs []device.View) []device.Buffer {
	bs := make([]device.Buffer, len(vs))
	for i, v := range vs {
		bs[i] = v.Buf
	}
	return bs
}

// Elementwise runs a fused elementwise program.
func (d *Device) Elementwise(k *device.ElementwiseKernel) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	l, err := gpu.EncodeElementwise(k, d.target())
	if err != nil {
		return err
	}
	return d.record(l, outputs(k.Outputs)...)
}
