//go:build cgo && linux

package cuda_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestHardwareKernelTiming times ten copies of 16 MiB on CUDA device 0 of
// the machine's real driver with events (device.KernelTimer), skipping as
// TestHardwareKernels does: ten times, in order, each positive and inside
// the host's window around them.
func TestHardwareKernelTiming(t *testing.T) {
	d := gputest.Open(t, "cuda")
	kt, ok := d.(device.KernelTimer)
	require.True(t, ok)
	require.True(t, d.Info().Features.Timestamps)
	const n = 4 << 20
	src, dst := gputest.Alloc(t, d, 4*n), gputest.Alloc(t, d, 4*n)
	k := &device.CopyKernel{Src: device.Contiguous(src, device.Float32, 0, []int{n}),
		Dst: device.Contiguous(dst, device.Float32, 0, []int{n})}
	require.NoError(t, d.Copy(k)) // compiles the kernel before timing
	require.NoError(t, d.Sync())
	before := time.Now()
	kt.SetProfiling(true)
	for i := 0; i < 10; i++ {
		require.NoError(t, d.Copy(k))
	}
	require.NoError(t, d.Sync())
	after := time.Now()
	kt.SetProfiling(false)
	times := kt.KernelTimes()
	require.Len(t, times, 10)
	for i, x := range times {
		t.Logf("%d: call %d %s start +%v, %v", i, x.Call, x.Name, x.Start.Sub(before), x.Duration)
		assert.Equal(t, "copy", x.Name)
		assert.Positive(t, x.Duration)
		assert.False(t, x.Start.Before(before), "%d", i)
		assert.False(t, x.Start.Add(x.Duration).After(after.Add(time.Millisecond)), "%d", i)
		if i > 0 {
			assert.Equal(t, times[i-1].Call+1, x.Call)
			// Events resolve about half a microsecond: allow two.
			prevEnd := times[i-1].Start.Add(times[i-1].Duration)
			assert.False(t, x.Start.Add(2*time.Microsecond).Before(prevEnd), "%d overlaps %d", i, i-1)
		}
	}
}
