//go:build cgo

package vulkan

import (
	"testing"
	"time"

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
		assert.Equal(t, "elementwise", kt.Name)
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
	calls := d.KernelCalls()
	d.SetProfiling(true) // submits the untimed batch: the next kernel is timed
	require.NoError(t, d.Elementwise(unaryKernel(x, o, n, device.OpNeg)))
	require.NoError(t, d.Sync())
	times := d.KernelTimes()
	require.Len(t, times, 1)
	assert.Equal(t, calls+1, times[0].Call)
	assert.Equal(t, calls+1, d.KernelCalls())
}

func TestKernelTimesOrdered(t *testing.T) {
	d := openDevice(t)
	if !d.Info().Features.Timestamps {
		t.Skip("the adapter has no timestamps")
	}
	n := 1 << 10
	x, o := upload(t, d, f32Bytes(make([]float32, n))), alloc(t, d, int64(4*n))
	d.SetProfiling(true)
	start := time.Now()
	first := d.KernelCalls() + 1
	const kernels = 2*maxBatchDispatches + 10 // several batches
	for i := 0; i < kernels; i++ {
		// A chain (x -> o -> x ...): each kernel waits for the previous one.
		in, out := x, o
		if i%2 == 1 {
			in, out = o, x
		}
		require.NoError(t, d.Elementwise(unaryKernel(in, out, n, device.OpNeg)))
	}
	require.NoError(t, d.Sync())
	end := time.Now()
	times := d.KernelTimes()
	require.Len(t, times, kernels)
	for i, kt := range times {
		assert.Equal(t, first+uint64(i), kt.Call)
		assert.Positive(t, kt.Duration)
		assert.False(t, kt.Start.Before(start), "kernel %d starts before the first was recorded", i)
		assert.False(t, kt.Start.Add(kt.Duration).After(end), "kernel %d ends after Sync returned", i)
		if i > 0 { // a dependent chain runs in order on any device
			prev := times[i-1]
			assert.False(t, kt.Start.Before(prev.Start), "kernel %d starts before kernel %d", i, i-1)
			assert.False(t, kt.Start.Add(kt.Duration).Before(prev.Start.Add(prev.Duration)), "kernel %d ends before kernel %d", i, i-1)
		}
	}
}
