//go:build cgo

package vulkan

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

func TestErrorClasses(t *testing.T) {
	assert.ErrorIs(t, &Error{Op: "vkAllocateMemory", Result: -2}, device.ErrOutOfMemory)
	assert.ErrorIs(t, &Error{Op: "vkAllocateMemory", Result: -1}, device.ErrOutOfMemory)
	assert.ErrorIs(t, &Error{Op: "vkQueueSubmit", Result: -4}, device.ErrDeviceLost)
	e := &Error{Op: "vkCreateComputePipelines", Result: resultErrorUnknown}
	assert.NotErrorIs(t, e, device.ErrDeviceLost)
	assert.Equal(t, "vulkan: vkCreateComputePipelines: VK_ERROR_UNKNOWN", e.Error())
	assert.Contains(t, (&Error{Op: "x", Result: -12345}).Error(), "VkResult -12345")
}

func TestValidationMessagesSurface(t *testing.T) {
	d := openDevice(t)
	require.NoError(t, d.Sync())
	reportValidation("VUID-test: a recorded validation error")
	err := d.Sync()
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, ve.Messages[0], "VUID-test")
	require.NoError(t, d.Sync(), "reported once")

	b := alloc(t, d, 16)
	reportValidation("VUID-test-2")
	assert.ErrorAs(t, d.Read(b, 0, make([]byte, 4)), &ve)
}

func TestValidationLayerCatchesMisuse(t *testing.T) {
	d := openDevice(t)
	if !d.in.validation {
		t.Skipf("set %s=1 to run with the validation layer", EnvValidation)
	}
	x := alloc(t, d, 64)
	k := unaryKernel(x, x, 16, device.OpNeg)
	l, err := gpu.EncodeElementwise(k, d.target())
	require.NoError(t, err)
	l.Bindings[0].Size = 1 << 20 // a range beyond the buffer: invalid usage
	d.mu.Lock()
	_ = d.record(l, x)
	d.mu.Unlock()
	err = d.Sync()
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	t.Log(ve)
}

func TestGatherOutOfRangeReported(t *testing.T) {
	d := openDevice(t)
	src := upload(t, d, f32Bytes([]float32{10, 20, 30, 40}))
	idx := upload(t, d, i32Bytes([]int32{0, 3, 7, 1}))
	out := alloc(t, d, 16)
	k := &device.GatherKernel{
		Axis:  0,
		Src:   device.Contiguous(src, device.Float32, 0, []int{4}),
		Index: device.Contiguous(idx, device.Int32, 0, []int{4}),
		Out:   device.Contiguous(out, device.Float32, 0, []int{4}),
	}
	require.NoError(t, d.Gather(k))
	err := d.Sync()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "index 7 out of range")
	require.NoError(t, d.Sync(), "the flag is cleared")

	// In range, the same kernel is clean.
	require.NoError(t, d.Write(idx, 0, i32Bytes([]int32{3, 2, 1, 0})))
	require.NoError(t, d.Gather(k))
	assert.Equal(t, []float32{40, 30, 20, 10}, bytesF32(download(t, d, out, 16)))
}

func TestStatusSlotsRecycle(t *testing.T) {
	d := openDevice(t)
	src := upload(t, d, f32Bytes([]float32{1, 2}))
	idx := upload(t, d, i32Bytes([]int32{5}))
	out := alloc(t, d, 16)
	k := &device.GatherKernel{
		Src:   device.Contiguous(src, device.Float32, 0, []int{2}),
		Index: device.Contiguous(idx, device.Int32, 0, []int{1}),
		Out:   device.Contiguous(out, device.Float32, 0, []int{1}),
	}
	// More launches than slots: the device checks in between and keeps the
	// errors for Sync.
	for i := 0; i < statusSlots+10; i++ {
		require.NoError(t, d.Gather(k))
	}
	err := d.Sync()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "index 5 out of range")
	require.NoError(t, d.Sync())
}

func TestTooManyBindings(t *testing.T) {
	d := openDevice(t)
	nin := d.info.Limits.MaxBuffersPerKernel // with the output: one buffer too many
	var pb device.Builder
	acc := pb.Input(0, device.Float32)
	views := make([]device.View, nin+1)
	for i := range views {
		views[i] = device.Contiguous(alloc(t, d, 16), device.Float32, 0, []int{4})
		if i > 0 && i < nin {
			acc = pb.Binary(device.OpAdd, acc, pb.Input(i, device.Float32))
		}
	}
	pb.Output(acc)
	err := d.Elementwise(&device.ElementwiseKernel{Shape: []int{4}, Inputs: views[:nin], Program: pb.P, Outputs: views[nin:]})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "buffers")

	l := &gpu.Launch{Kind: shaders.Elementwise, Entry: "elementwise", Workgroups: 1, Bindings: make([]gpu.Binding, shaders.DataBindings+1)}
	d.mu.Lock()
	err = d.record(l)
	d.mu.Unlock()
	require.Error(t, err)
	assert.False(t, errors.Is(err, device.ErrDeviceLost))
}

func TestOutOfMemory(t *testing.T) {
	d := openDevice(t)
	_, err := d.Alloc(d.Info().Limits.MaxAllocBytes + 1)
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	b := alloc(t, d, 16) // the device is still usable
	require.NoError(t, d.Write(b, 0, []byte{1, 2, 3, 4}))
}

func TestDeviceLost(t *testing.T) {
	d := openDevice(t)
	b := alloc(t, d, 64)
	require.NoError(t, d.Elementwise(unaryKernel(b, b, 16, device.OpNeg)))
	// Simulate a driver reporting VK_ERROR_DEVICE_LOST.
	d.mu.Lock()
	err := d.check("vkQueueSubmit", -4)
	d.mu.Unlock()
	require.ErrorIs(t, err, device.ErrDeviceLost)
	assert.ErrorIs(t, d.Sync(), device.ErrDeviceLost)
	assert.ErrorIs(t, d.Read(b, 0, make([]byte, 4)), device.ErrDeviceLost)
	assert.ErrorIs(t, d.Elementwise(unaryKernel(b, b, 16, device.OpNeg)), device.ErrDeviceLost)
	_, err = d.Alloc(16)
	assert.ErrorIs(t, err, device.ErrDeviceLost)
	d.Free(b)
	require.NoError(t, d.Close())
}
