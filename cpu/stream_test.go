package cpu

import (
	"math"
	"sync"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// gate holds d's stream until the returned function is called: kernels
// called meanwhile wait behind it.
func gate(d *Device) (open func()) {
	ch := make(chan struct{})
	d.stream.submit(func() error { <-ch; return nil })
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }
}

// affine returns the kernel out = in·a + b over n float32 elements.
func affine(in, out device.Buffer, n int, a, b float64) *device.ElementwiseKernel {
	var pb device.Builder
	x := pb.Input(0, device.Float32)
	pb.Output(pb.Binary(device.OpAdd, pb.Binary(device.OpMul, x, pb.Const(a, device.Float32)), pb.Const(b, device.Float32)))
	shape := []int{n}
	return &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{device.Contiguous(in, device.Float32, 0, shape)},
		Program: pb.P, Outputs: []device.View{device.Contiguous(out, device.Float32, 0, shape)}}
}

// peek returns a buffer's float32 contents without waiting for the stream.
func peek(b device.Buffer) []float32 { return append([]float32(nil), asF32(b.(*buffer).data)...) }

func ramp(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i%1000) - 500
	}
	return v
}

func TestKernelsRunAfterTheirCallsInCallOrder(t *testing.T) {
	d := newDevice(t, 0)
	n := 1 << 16
	xv := ramp(n)
	x, y := upload(t, d, device.Float32, xv), poisoned(t, d, device.Float32, n)
	open := gate(d)
	defer open()
	k := affine(x, y, n, 2, 0) // y = 2x
	require.NoError(t, d.Elementwise(k))
	k.Program.Code[1].Imm = 5                                // the device keeps its own copy of the kernel
	require.NoError(t, d.Elementwise(affine(y, x, n, 1, 1))) // x = y + 1
	require.NoError(t, d.Elementwise(affine(x, y, n, 3, 0))) // y = 3x
	require.True(t, d.stream.busy())
	require.Equal(t, uint32(0xffffffff), math.Float32bits(peek(y)[7]), "no kernel ran before the gate opened")
	open()
	got := download(t, d, y, device.Float32, n)
	for i, v := range xv {
		require.Equal(t, (2*v+1)*3, got[i], "element %d", i)
	}
}

func TestWriteWhileKernelsArePendingIsOrderedAfterThem(t *testing.T) {
	d := newDevice(t, 0)
	n := 4096
	old, fresh := ramp(n), make([]float64, n)
	for i := range fresh {
		fresh[i] = 7
	}
	x, y := upload(t, d, device.Float32, old), poisoned(t, d, device.Float32, n)
	open := gate(d)
	defer open()
	require.NoError(t, d.Elementwise(affine(x, y, n, 2, 0)))
	src := encode(device.Float32, fresh)
	require.NoError(t, d.Write(x, 0, src))
	clear(src) // the device copied it
	require.Error(t, d.Write(x, 4, encode(device.Float32, fresh)), "a range outside the buffer is refused at once")
	require.Equal(t, float32(old[3]), peek(x)[3], "the write waits for the kernel before it")
	open()
	gotY, gotX := download(t, d, y, device.Float32, n), download(t, d, x, device.Float32, n)
	for i := range n {
		require.Equal(t, 2*old[i], gotY[i])
		require.Equal(t, 7.0, gotX[i])
	}
}

func TestFreeWhileKernelsArePendingReleasesAfterThem(t *testing.T) {
	defer func(m int64) { hugeMin = m }(hugeMin)
	hugeMin = 1 << 16 // x is mapped memory, which a release unmaps
	d := newDevice(t, 0)
	n := 1 << 16
	xv := ramp(n)
	x, y := upload(t, d, device.Float32, xv), poisoned(t, d, device.Float32, n)
	before := d.InUse()
	open := gate(d)
	defer open()
	require.NoError(t, d.Elementwise(affine(x, y, n, 2, 0)))
	d.Free(x)
	d.Free(x) // a second Free does nothing
	require.Equal(t, before-int64(4*n), d.InUse(), "freed bytes stop counting at once")
	require.False(t, x.(*buffer).freed, "the memory outlives the kernel that reads it")
	open()
	got := download(t, d, y, device.Float32, n)
	for i, v := range xv {
		require.Equal(t, 2*v, got[i])
	}
	require.True(t, x.(*buffer).freed)
	require.ErrorContains(t, ran(d, d.Elementwise(affine(x, y, n, 1, 0))), "freed buffer")
}

func TestKernelRuntimeErrorSurfacesAtSyncAndRead(t *testing.T) {
	d := newDevice(t, 0)
	src := device.Contiguous(upload(t, d, device.Float32, []float64{1, 2, 3}), device.Float32, 0, []int{3})
	index := device.Contiguous(upload(t, d, device.Int32, []float64{0, 5}), device.Int32, 0, []int{2})
	out := device.Contiguous(poisoned(t, d, device.Float32, 2), device.Float32, 0, []int{2})
	bad := &device.GatherKernel{Src: src, Index: index, Out: out}
	open := gate(d)
	defer open()
	require.NoError(t, d.Gather(bad), "the call returns before the kernel runs")
	open()
	require.ErrorContains(t, d.Sync(), "index 5")
	require.NoError(t, d.Sync(), "an error is returned once")
	require.NoError(t, d.Gather(bad))
	require.ErrorContains(t, d.Read(out.Buf, 0, make([]byte, 8)), "index 5")
	require.Error(t, d.Gather(&device.GatherKernel{Axis: 3, Src: src, Index: index, Out: out}), "a malformed kernel is refused by its call")
}

func TestCloseRunsPendingKernels(t *testing.T) {
	d := New(Config{})
	n := 1024
	x, y := upload(t, d, device.Float32, ramp(n)), poisoned(t, d, device.Float32, n)
	open := gate(d)
	defer open()
	require.NoError(t, d.Elementwise(affine(x, y, n, 2, 0)))
	done := make(chan error)
	go func() { done <- d.Close() }()
	open()
	require.NoError(t, <-done)
	require.Equal(t, float32(2*ramp(n)[9]), asF32(y.(*buffer).data)[9])
	require.ErrorIs(t, d.Elementwise(affine(x, y, n, 2, 0)), device.ErrClosed)
	require.ErrorIs(t, d.Sync(), device.ErrClosed)
}

func TestSynchronousDevicesRunKernelsInTheirCalls(t *testing.T) {
	t.Setenv(SyncEnv, "1")
	raw, err := Backend{}.Open(0)
	require.NoError(t, err)
	d := raw.(*Device)
	defer d.Close()
	require.True(t, d.synchronous)
	src := device.Contiguous(upload(t, d, device.Float32, []float64{1, 2, 3}), device.Float32, 0, []int{3})
	index := device.Contiguous(upload(t, d, device.Int32, []float64{0, 5}), device.Int32, 0, []int{2})
	out := device.Contiguous(poisoned(t, d, device.Float32, 2), device.Float32, 0, []int{2})
	require.ErrorContains(t, d.Gather(&device.GatherKernel{Src: src, Index: index, Out: out}), "index 5")
	require.False(t, d.stream.busy())

	t.Setenv(SyncEnv, "yes")
	_, err = Backend{}.Open(0)
	require.ErrorContains(t, err, SyncEnv)
}

func TestKernelsFromManyGoroutines(t *testing.T) {
	d := newDevice(t, 0)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 3000 + g
			xv := ramp(n)
			x, y := upload(t, d, device.Float32, xv), poisoned(t, d, device.Float32, n)
			for i := range 20 {
				if err := d.Elementwise(affine(x, y, n, 1, float64(i))); err != nil {
					t.Error(err)
					return
				}
			}
			got := download(t, d, y, device.Float32, n)
			for i, v := range xv {
				if got[i] != v+19 {
					t.Errorf("goroutine %d, element %d: %v, want %v", g, i, got[i], v+19)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestKernelTimesWhileProfiling(t *testing.T) {
	for _, synchronous := range []bool{false, true} {
		d := New(Config{Synchronous: synchronous})
		n := 1 << 14
		x, y := upload(t, d, device.Float32, ramp(n)), poisoned(t, d, device.Float32, n)
		before := d.KernelCalls()
		require.NoError(t, d.Elementwise(affine(x, y, n, 2, 0)))
		d.SetProfiling(true)
		require.NoError(t, d.Elementwise(affine(y, x, n, 2, 0)))
		require.NoError(t, d.Copy(&device.CopyKernel{Dst: device.Contiguous(y, device.Float32, 0, []int{n}), Src: device.Contiguous(x, device.Float32, 0, []int{n})}))
		d.SetProfiling(false)
		require.NoError(t, d.Elementwise(affine(x, y, n, 2, 0)))
		require.NoError(t, d.Sync())
		require.Equal(t, before+4, d.KernelCalls())
		times := d.KernelTimes()
		require.Len(t, times, 2, "synchronous %v", synchronous)
		require.Equal(t, []string{"elementwise", "copy"}, []string{times[0].Name, times[1].Name})
		require.Equal(t, []uint64{before + 2, before + 3}, []uint64{times[0].Call, times[1].Call})
		require.Positive(t, times[0].Duration)
		require.Empty(t, d.KernelTimes(), "times are returned once")
		require.NoError(t, d.Close())
	}
}

func TestIdleDeviceHoldsNoGoroutine(t *testing.T) {
	d := newDevice(t, 0)
	n := 1024
	x, y := upload(t, d, device.Float32, ramp(n)), poisoned(t, d, device.Float32, n)
	require.NoError(t, d.Elementwise(affine(x, y, n, 2, 0)))
	require.NoError(t, d.Sync())
	d.stream.mu.Lock()
	defer d.stream.mu.Unlock()
	require.False(t, d.stream.running, "the queue's goroutine ends when the queue is empty")
}
