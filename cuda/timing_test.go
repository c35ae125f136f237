//go:build cgo && linux

package cuda

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// copyKernel returns a copy of a fresh float32 tensor of shape in layout l
// into a contiguous output.
func copyKernel(t *testing.T, d *Device, shape []int, l gputest.Layout) *device.CopyKernel {
	src := gputest.Make(t, d, gputest.NewRand(t), device.Float32, shape, l, gputest.Normal(device.Float32))
	return &device.CopyKernel{Dst: gputest.Output(t, d, device.Float32, 0, shape), Src: src.View}
}

// TestKernelTiming checks the profiler's times through the fake driver's
// events: one per timed launch, named by kernel, numbered by call (the
// four launches of one ten-dimensional copy share one), in order, with
// positive durations and starts between the host's times around them;
// reported once; none while profiling is off; and every event destroyed
// by Close.
func TestKernelTiming(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<16)
	require.True(t, d.Info().Features.Timestamps)
	small := copyKernel(t, d, []int{300}, gputest.Contiguous)
	wide := copyKernel(t, d, []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2}, gputest.Reversed)
	require.NoError(t, d.Sync())
	calls := d.KernelCalls()

	before := time.Now()
	d.SetProfiling(true)
	require.NoError(t, d.Copy(small))
	require.NoError(t, d.Copy(wide))
	require.NoError(t, d.Copy(small))
	require.NoError(t, d.Sync())
	after := time.Now()
	times := d.KernelTimes()
	require.Len(t, times, 6)
	assert.Equal(t, calls+3, d.KernelCalls())
	wantCalls := []uint64{1, 2, 2, 2, 2, 3}
	for i, kt := range times {
		assert.Equal(t, "copy", kt.Name)
		assert.Equal(t, calls+wantCalls[i], kt.Call, "launch %d", i)
		assert.Positive(t, kt.Duration)
		assert.False(t, kt.Start.Before(before), "launch %d starts %v before %v", i, kt.Start, before)
		assert.False(t, kt.Start.Add(kt.Duration).After(after.Add(time.Millisecond)), "launch %d ends after %v", i, after)
		if i > 0 {
			assert.False(t, kt.Start.Before(times[i-1].Start), "launch %d starts before launch %d", i, i-1)
		}
	}
	assert.Empty(t, d.KernelTimes(), "times are reported once")

	d.SetProfiling(false)
	require.NoError(t, d.Copy(small))
	require.NoError(t, d.Sync())
	assert.Empty(t, d.KernelTimes())
	assert.Equal(t, calls+4, d.KernelCalls(), "calls are counted with profiling off")

	require.NoError(t, d.Close())
	assert.Equal(t, f.count(t, "cuEventCreate"), f.count(t, "cuEventDestroy"), "Close destroys every event")
	assert.Positive(t, f.count(t, "cuEventCreate"))
}

// TestKernelTimingWaitsForCompletion checks that a launch whose end event
// is not complete yet is reported by a later KernelTimes, and that gather
// and scatter are named.
func TestKernelTimingWaitsForCompletion(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<16)
	f32, i32 := device.Float32, device.Int32
	src := gputest.Upload(t, d, f32, []float64{1, 2, 3})
	ix := gputest.Upload(t, d, i32, []float64{2, 0})
	out := gputest.Output(t, d, f32, 0, []int{2})
	d.SetProfiling(true)
	require.NoError(t, d.Gather(&device.GatherKernel{Src: device.Contiguous(src, f32, 0, []int{3}),
		Index: device.Contiguous(ix, i32, 0, []int{2}), Out: out}))
	require.NoError(t, d.Scatter(&device.ScatterKernel{Dst: device.Contiguous(src, f32, 0, []int{3}),
		Index: device.Contiguous(ix, i32, 0, []int{2}), Src: out}))
	require.NoError(t, d.Sync())
	t.Setenv("SF_FAKE_CUDA_FAIL", "cuEventQuery=600*1") // CUDA_ERROR_NOT_READY once
	assert.Empty(t, d.KernelTimes(), "the first launch looks pending, and the second waits behind it")
	times := d.KernelTimes()
	require.Len(t, times, 2)
	assert.Equal(t, "gather", times[0].Name)
	assert.Equal(t, "scatter", times[1].Name)
	assert.Equal(t, times[0].Call+1, times[1].Call)
}

// TestKernelTimingWithoutEvents checks a driver without events: no
// Timestamps feature, SetProfiling does nothing, calls are still counted.
func TestKernelTimingWithoutEvents(t *testing.T) {
	f := buildFake(t, []string{"-DFAKE_NO_EVENTS"}, nil)
	d := f.open(t, 1<<16)
	assert.False(t, d.Info().Features.Timestamps)
	k := copyKernel(t, d, []int{10}, gputest.Contiguous)
	d.SetProfiling(true)
	require.NoError(t, d.Copy(k))
	require.NoError(t, d.Sync())
	assert.Nil(t, d.KernelTimes())
	assert.Equal(t, uint64(1), d.KernelCalls())
	assert.Zero(t, f.count(t, "cuEventCreate"))
}
