//go:build cgo

package webgpu

import (
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// addScalar records out = in + c over n float32 elements.
func addScalar(d device.Device, in, out device.Buffer, n int, c float32) error {
	var b device.Builder
	b.Output(b.Binary(device.OpAdd, b.Input(0, device.Float32), b.Const(float64(c), device.Float32)))
	sh := []int{n}
	return d.Elementwise(&device.ElementwiseKernel{Shape: sh, Program: b.P,
		Inputs:  []device.View{device.Contiguous(in, device.Float32, 0, sh)},
		Outputs: []device.View{device.Contiguous(out, device.Float32, 0, sh)}})
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func TestAdapters(t *testing.T) {
	d := gputest.Open(t, Name)
	info := d.Info()
	assert.Equal(t, Name, info.Backend)
	assert.NotEmpty(t, info.Name)
	assert.NotEmpty(t, info.Driver)
	assert.GreaterOrEqual(t, info.Limits.MaxBuffersPerKernel, 7)
	assert.Positive(t, info.Limits.MaxBindingBytes)
	assert.Positive(t, info.Limits.MaxAllocBytes)
	assert.GreaterOrEqual(t, info.Limits.MaxWorkgroups[0], 65535)
	if info.Kind == device.KindSoftwareGPU {
		assert.Positive(t, info.MemoryBytes, "a software adapter reports system memory")
		assert.False(t, info.Kind.IsHardwareGPU())
	}
	b, _ := device.Lookup(Name)
	infos, err := b.Adapters()
	require.NoError(t, err)
	for i, in := range infos {
		assert.Equal(t, i, in.Index)
		if i > 0 {
			assert.LessOrEqual(t, infos[i-1].Kind.Rank(), in.Kind.Rank(), "adapters are ordered discrete, integrated, virtual, software")
		}
	}
}

// TestReadbackUnderGC reads results back in a loop while another goroutine
// allocates and collects garbage: the wrapper's MapAsync would crash here
// (a cgo.Handle freed under C's feet).
func TestReadbackUnderGC(t *testing.T) {
	d := gputest.Open(t, Name)
	const n = 1000
	in := gputest.Upload(t, d, device.Float32, make([]float64, n))
	out := gputest.Alloc(t, d, 4*n)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var sink [][]byte
		for {
			select {
			case <-stop:
				return
			default:
			}
			sink = append(sink, make([]byte, 1<<14))
			if len(sink) > 64 {
				sink = nil
				runtime.GC()
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	buf := make([]byte, 4*n)
	for i := 0; i < 200; i++ {
		require.NoError(t, addScalar(d, in, out, n, float32(i)))
		require.NoError(t, d.Read(out, 0, buf))
		v := f32s(buf)
		require.Equal(t, float32(i), v[0], "iteration %d", i)
		require.Equal(t, float32(i), v[n-1], "iteration %d", i)
	}
}

// TestConcurrentUse runs kernels and readbacks from several goroutines on
// one device.
func TestConcurrentUse(t *testing.T) {
	d := gputest.Open(t, Name)
	const n, workers, rounds = 777, 4, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		in := gputest.Upload(t, d, device.Float32, make([]float64, n))
		out := gputest.Alloc(t, d, 4*n)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			buf := make([]byte, 4*n)
			for i := 0; i < rounds; i++ {
				c := float32(w*1000 + i)
				if err := addScalar(d, in, out, n, c); err != nil {
					errs <- err
					return
				}
				if err := d.Read(out, 0, buf); err != nil {
					errs <- err
					return
				}
				if v := f32s(buf); v[0] != c || v[n-1] != c {
					errs <- errors.New("wrong result under concurrency")
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestMisuseIsAnError checks that bad calls return errors (or panic with a
// message) instead of reaching wgpu.
func TestMisuseIsAnError(t *testing.T) {
	d := gputest.Open(t, Name)
	b := gputest.Alloc(t, d, 16)
	assert.Error(t, d.Read(b, 8, make([]byte, 16)), "read past the end")
	assert.Error(t, d.Write(b, -1, []byte{1}), "negative offset")
	_, err := d.Alloc(-1)
	assert.Error(t, err)
	_, err = d.Alloc(d.Info().Limits.MaxAllocBytes + 1)
	assert.ErrorIs(t, err, device.ErrOutOfMemory)

	freed, err := d.Alloc(64)
	require.NoError(t, err)
	d.Free(freed)
	assert.Error(t, d.Read(freed, 0, make([]byte, 4)), "read of a freed buffer")
	assert.Error(t, addScalar(d, freed, b, 4, 1), "kernel on a freed buffer")
	assert.Panics(t, func() { d.Free(struct{ device.Buffer }{}) }, "free of a foreign buffer")

	// A view larger than its buffer is refused by validation.
	assert.Error(t, addScalar(d, b, b, 100, 1))
	require.NoError(t, d.Sync())
}

// TestFreeWhilePending frees buffers right after recording work that uses
// them: the work still runs and the buffers die afterwards.
func TestFreeWhilePending(t *testing.T) {
	d := gputest.Open(t, Name)
	const n = 4096
	out := gputest.Alloc(t, d, 4*n)
	for i := 0; i < 20; i++ {
		in, err := d.Alloc(4 * n)
		require.NoError(t, err)
		require.NoError(t, addScalar(d, in, in, n, 1)) // in-place on fresh memory
		require.NoError(t, addScalar(d, in, out, n, float32(i)))
		d.Free(in)
	}
	require.NoError(t, d.Sync())
	buf := make([]byte, 4*n)
	require.NoError(t, d.Read(out, 0, buf))
}

// TestUnalignedWriteRead checks byte-granular writes and reads that do not
// cover whole words.
func TestUnalignedWriteRead(t *testing.T) {
	d := gputest.Open(t, Name)
	b := gputest.Alloc(t, d, 11)
	assert.Equal(t, int64(12), b.Bytes(), "sizes round up to words")
	require.NoError(t, d.Write(b, 0, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}))
	require.NoError(t, d.Write(b, 3, []byte{30, 40, 50}))
	got := make([]byte, 7)
	require.NoError(t, d.Read(b, 1, got))
	assert.Equal(t, []byte{1, 2, 30, 40, 50, 6, 7}, got)
}

func TestClose(t *testing.T) {
	bk, _ := device.Lookup(Name)
	if _, err := bk.Adapters(); err != nil {
		t.Skip(err)
	}
	d, err := bk.Open(0)
	require.NoError(t, err)
	b, err := d.Alloc(64)
	require.NoError(t, err)
	require.NoError(t, addScalar(d, b, b, 16, 1))
	require.NoError(t, d.Close())
	assert.ErrorIs(t, d.Sync(), device.ErrClosed)
	_, err = d.Alloc(4)
	assert.ErrorIs(t, err, device.ErrClosed)
	assert.ErrorIs(t, addScalar(d, b, b, 16, 1), device.ErrClosed)
	d.Free(b) // harmless after Close
	require.NoError(t, d.Close())
}

// TestFreeWithoutSyncReleasesMemory allocates and frees far more than the
// pending-free bound without ever synchronizing.
func TestFreeWithoutSyncReleasesMemory(t *testing.T) {
	d := gputest.Open(t, Name).(*Device)
	const size = 64 << 20
	for i := 0; i < 12; i++ {
		b, err := d.Alloc(size)
		require.NoError(t, err)
		require.NoError(t, addScalar(d, b, b, 1024, 1))
		d.Free(b)
		assert.LessOrEqual(t, d.buried, int64(maxPendingFreeBytes), "iteration %d", i)
	}
	require.NoError(t, d.Sync())
}

// TestIndexErrorSurvivesWrites checks that a gather's index error waits
// for Sync even when unaligned writes read memory back in between.
func TestIndexErrorSurvivesWrites(t *testing.T) {
	d := gputest.Open(t, Name)
	src := gputest.Upload(t, d, device.Float32, []float64{1, 2, 3})
	idx := gputest.Upload(t, d, device.Int32, []float64{7})
	out := gputest.Alloc(t, d, 4)
	v := func(b device.Buffer, dt device.DType, n int) device.View {
		return device.Contiguous(b, dt, 0, []int{n})
	}
	require.NoError(t, d.Gather(&device.GatherKernel{Axis: 0, Src: v(src, device.Float32, 3), Index: v(idx, device.Int32, 1), Out: v(out, device.Float32, 1)}))
	odd := gputest.Alloc(t, d, 7)
	require.NoError(t, d.Write(odd, 1, []byte{1, 2, 3}), "an unaligned write does not report the gather's error")
	assert.ErrorContains(t, d.Sync(), "out of range")
	require.NoError(t, d.Sync())
}
