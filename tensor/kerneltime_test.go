package tensor

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/shaderflow/shaderflow/cpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// fakeTimer is the CPU device with pretend device timing: while on, every
// kernel call completes one kernel named after its kind, lasting as many
// microseconds as the call's number.
type fakeTimer struct {
	device.Device
	on    bool
	calls uint64
	done  []device.KernelTime
}

func (f *fakeTimer) Info() device.Info {
	i := f.Device.Info()
	i.Features.Timestamps = true
	return i
}

func (f *fakeTimer) SetProfiling(on bool) { f.on = on }
func (f *fakeTimer) KernelCalls() uint64  { return f.calls }
func (f *fakeTimer) KernelTimes() []device.KernelTime {
	t := f.done
	f.done = nil
	return t
}

func (f *fakeTimer) kernel(name string, err error) error {
	f.calls++
	if f.on {
		f.done = append(f.done, device.KernelTime{Call: f.calls, Name: name, Start: time.Now(), Duration: time.Duration(f.calls) * time.Microsecond})
	}
	return err
}

func (f *fakeTimer) Elementwise(k *device.ElementwiseKernel) error {
	return f.kernel("ew", f.Device.Elementwise(k))
}
func (f *fakeTimer) Reduce(k *device.ReduceKernel) error { return f.kernel("red", f.Device.Reduce(k)) }
func (f *fakeTimer) MatMul(k *device.MatMulKernel) error { return f.kernel("mm", f.Device.MatMul(k)) }
func (f *fakeTimer) Conv(k *device.ConvKernel) error     { return f.kernel("conv", f.Device.Conv(k)) }
func (f *fakeTimer) Pool(k *device.PoolKernel) error     { return f.kernel("pool", f.Device.Pool(k)) }
func (f *fakeTimer) Gather(k *device.GatherKernel) error {
	return f.kernel("gather", f.Device.Gather(k))
}
func (f *fakeTimer) Scatter(k *device.ScatterKernel) error {
	return f.kernel("scatter", f.Device.Scatter(k))
}
func (f *fakeTimer) Copy(k *device.CopyKernel) error { return f.kernel("copy", f.Device.Copy(k)) }

func openFakeTimer(t *testing.T) (*Device, *fakeTimer) {
	b, ok := device.Lookup("cpu")
	require.True(t, ok)
	raw, err := b.Open(0)
	require.NoError(t, err)
	f := &fakeTimer{Device: raw}
	d := newDevice(f)
	t.Cleanup(func() { _ = d.Close() })
	return d, f
}

func TestDeviceKernelTimesFeedTheProfiler(t *testing.T) {
	d, f := openFakeTimer(t)
	x := FromFloat32s(d, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	require.NoError(t, x.Realize())
	assert.False(t, f.on, "timing stays off while the profiler is")
	assert.Empty(t, d.Profiler().Rows())

	d.Profiler().SetEnabled(true)
	s := x.Exp().Add(x).Sum(1)
	_, err := s.Float32s()
	require.NoError(t, err)
	assert.True(t, f.on)
	// A kernel launched around the front end keeps the device's name.
	require.NoError(t, d.Raw().Copy(&device.CopyKernel{
		Src: device.Contiguous(x.n.block.Buf, device.Float32, 0, []int{6}),
		Dst: device.Contiguous(x.n.block.Buf, device.Float32, 0, []int{6}),
	}))

	rows := d.Profiler().Rows()
	require.NotEmpty(t, rows)
	var kernels, raw int
	for _, r := range rows {
		if r.Category != "kernel" {
			continue
		}
		if r.Count == 0 {
			assert.Equal(t, "copy", r.Name)
			raw += r.DeviceCount
			continue
		}
		kernels += r.Count
		assert.Equal(t, r.Count, r.DeviceCount, "row %s: a device time per launch", r.Name)
		assert.Positive(t, r.DeviceTotal)
	}
	assert.Positive(t, kernels)
	assert.Equal(t, 1, raw)
	assert.Empty(t, d.kt.pending, "every launch got its time")

	d.Profiler().SetEnabled(false)
	require.NoError(t, x.Neg().Realize())
	assert.False(t, f.on, "timing follows the profiler off")
}

func TestDeviceKernelTimesStayBounded(t *testing.T) {
	d, _ := openFakeTimer(t)
	d.Profiler().SetEnabled(true)
	x := FromFloat32s(d, []float32{1, 2, 3}, 3)
	for range 3 * deliverEvery {
		x = x.Neg()
		require.NoError(t, x.Realize())
		require.Less(t, len(d.kt.pending), deliverEvery)
	}
	r, ok := d.Profiler().Lookup("elementwise", "kernel")
	require.True(t, ok)
	assert.Equal(t, r.Count, r.DeviceCount)
}
