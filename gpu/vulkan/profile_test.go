//go:build cgo

package vulkan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

func TestProfiling(t *testing.T) {
	d := openDevice(t)
	if !d.Info().Features.Timestamps {
		t.Skip("the adapter has no timestamps")
	}
	n := 4096
	x, o := upload(t, d, f32Bytes(make([]float32, n))), alloc(t, d, int64(4*n))
	d.SetProfiling(true)
	for i := 0; i < 5; i++ {
		require.NoError(t, d.Elementwise(unaryKernel(x, o, n, device.OpExp)))
	}
	require.NoError(t, d.Sync())
	times := d.KernelTimes()
	require.Len(t, times, 5)
	for _, kt := range times {
		assert.Equal(t, "elementwise", kt.Entry)
		assert.Positive(t, kt.Duration)
	}
	assert.Empty(t, d.KernelTimes(), "times are reported once")
	d.SetProfiling(false)
	require.NoError(t, d.Elementwise(unaryKernel(x, o, n, device.OpExp)))
	require.NoError(t, d.Sync())
	assert.Empty(t, d.KernelTimes())
}

func TestProfilingSwitchedMidBatch(t *testing.T) {
	d := openDevice(t)
	if !d.Info().Features.Timestamps {
		t.Skip("the adapter has no timestamps")
	}
	n := 256
	x, o := upload(t, d, f32Bytes(make([]float32, n))), alloc(t, d, int64(4*n))
	require.NoError(t, d.Elementwise(unaryKernel(x, o, n, device.OpNeg)))
	d.SetProfiling(true) // the recording batch began untimed: it stays so
	require.NoError(t, d.Elementwise(unaryKernel(x, o, n, device.OpNeg)))
	require.NoError(t, d.Sync())
	assert.Empty(t, d.KernelTimes())
	require.NoError(t, d.Elementwise(unaryKernel(x, o, n, device.OpNeg)))
	require.NoError(t, d.Sync())
	assert.Len(t, d.KernelTimes(), 1)
}
