//go:build cgo && linux

package cuda

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

func TestInfo(t *testing.T) {
	f := buildFake(t, nil, nil)
	t.Setenv("SF_FAKE_CUDA_CC", "86")
	d := f.open(t, 64)
	in := d.Info()
	assert.Equal(t, "cuda", in.Backend)
	assert.Equal(t, "Fake CUDA GPU 0", in.Name)
	assert.Equal(t, "CUDA 13.0, sm_86", in.Driver)
	assert.Equal(t, device.KindDiscreteGPU, in.Kind)
	assert.Equal(t, int64(1<<30), in.MemoryBytes)
	assert.Equal(t, [3]int{2147483647, 65535, 65535}, in.Limits.MaxWorkgroups)
	assert.Equal(t, 1024, in.Limits.MaxWorkgroupSize)
	assert.Equal(t, 49152, in.Limits.SharedMemoryBytes)
	assert.True(t, in.Features.Float16)
	assert.Equal(t, 86, d.cc)
}

func TestWriteReadInChunks(t *testing.T) {
	for _, pools := range []bool{true, false} {
		f := buildFake(t, nil, nil)
		if !pools {
			t.Setenv("SF_FAKE_CUDA_NO_POOLS", "1")
		}
		d := f.open(t, 64) // a 64-byte staging buffer in halves of 32: 1000 bytes take 32 chunks
		b, err := d.Alloc(1000)
		require.NoError(t, err)
		src := make([]byte, 1000)
		for i := range src {
			src[i] = byte(i * 7)
		}
		require.NoError(t, d.Write(b, 0, src))
		require.NoError(t, d.Write(b, 990, []byte{1, 2, 3}))
		got := make([]byte, 1000)
		require.NoError(t, d.Read(b, 0, got))
		want := append(append(append([]byte{}, src[:990]...), 1, 2, 3), src[993:]...)
		assert.Equal(t, want, got)
		assert.Equal(t, 33, f.count(t, "cuMemcpyHtoDAsync "), "chunks through the pinned staging buffer's halves")
		assert.Equal(t, 32, f.count(t, "cuMemcpyDtoHAsync "))
		d.Free(b)
		require.NoError(t, d.Sync())
		if pools {
			assert.Equal(t, 1, f.count(t, "cuMemAllocAsync 1000"))
			assert.Equal(t, 1, f.count(t, "cuMemFreeAsync"))
		} else {
			assert.Equal(t, 1, f.count(t, "cuMemAlloc 1000"))
			assert.Equal(t, 1, f.count(t, "cuMemFree"))
		}
	}
}

func TestOutOfMemory(t *testing.T) {
	f := buildFake(t, nil, nil)
	t.Setenv("SF_FAKE_CUDA_MEM", "4096")
	d := f.open(t, 64)
	_, err := d.Alloc(4097)
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	b, err := d.Alloc(3000)
	require.NoError(t, err)
	_, err = d.Alloc(2000)
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	assert.Contains(t, err.Error(), "cuMemAllocAsync: CUDA_ERROR_OUT_OF_MEMORY (2)")
	d.Free(b)
	_, err = d.Alloc(2000)
	require.NoError(t, err, "freed memory is available again")
	assert.Equal(t, 1, f.count(t, "cuMemPoolTrimTo 0"), "the pool gives back what it keeps before the driver's failed allocation is retried")
}

// TestPoolKeepsFreedMemory checks that opening a device with memory pools
// sets its default pool's release threshold to the maximum, so that freed
// memory stays for the next stream-ordered allocation instead of going
// back to the system at each synchronization; that a device without pools
// leaves it alone; and that a driver refusing the attribute still opens.
func TestPoolKeepsFreedMemory(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 64)
	assert.Equal(t, 1, f.count(t, "cuMemPoolSetAttribute attr=4 value=18446744073709551615"))
	assert.NotNil(t, d.ctx.pool)

	f = buildFake(t, nil, nil)
	t.Setenv("SF_FAKE_CUDA_FAIL", "cuMemPoolSetAttribute=1")
	d = f.open(t, 64)
	assert.Equal(t, 1, f.count(t, "cuDeviceGetDefaultMemPool"))
	assert.Nil(t, d.ctx.pool, "a refused threshold leaves the default")
	b, err := d.Alloc(16)
	require.NoError(t, err)
	d.Free(b)
	require.NoError(t, d.Sync())
	assert.Equal(t, 1, f.count(t, "cuMemAllocAsync 16"))

	f = buildFake(t, nil, nil)
	t.Setenv("SF_FAKE_CUDA_FAIL", "")
	t.Setenv("SF_FAKE_CUDA_NO_POOLS", "1")
	d = f.open(t, 64)
	assert.Zero(t, f.count(t, "cuDeviceGetDefaultMemPool"))
	assert.Nil(t, d.ctx.pool)
}

// TestCloseGivesBackPoolMemory checks that Close, once the stream has
// finished the device's last frees, trims the default pool, which keeps
// freed memory for the process's lifetime otherwise: a program that closes
// the device and goes on should not hold its memory.
func TestCloseGivesBackPoolMemory(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 64)
	b, err := d.Alloc(4096)
	require.NoError(t, err)
	d.Free(b)
	_, err = d.Alloc(16) // still live at Close
	require.NoError(t, err)
	require.Zero(t, f.count(t, "cuMemPoolTrimTo"))
	require.NoError(t, d.Close())
	calls := f.calls(t)
	trim, lastFree, sync := -1, -1, -1
	for i, c := range calls {
		switch {
		case strings.HasPrefix(c, "cuMemPoolTrimTo 0"):
			trim = i
		case strings.HasPrefix(c, "cuMemFreeAsync"):
			lastFree = i
		case strings.HasPrefix(c, "cuStreamSynchronize"):
			sync = i
		}
	}
	require.Equal(t, 1, f.count(t, "cuMemPoolTrimTo"), "one trim, at Close")
	assert.Greater(t, trim, lastFree, "after the last free")
	assert.Greater(t, trim, sync, "after the stream finished it")

	f = buildFake(t, nil, nil)
	t.Setenv("SF_FAKE_CUDA_NO_POOLS", "1")
	d = f.open(t, 64)
	require.NoError(t, d.Close())
	assert.Zero(t, f.count(t, "cuMemPoolTrimTo"), "no pool, nothing to trim")
}

func TestBadArgumentsAreErrors(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 64)
	other := f.open(t, 64)
	b, err := d.Alloc(16)
	require.NoError(t, err)
	ob, err := other.Alloc(16)
	require.NoError(t, err)
	_, err = d.Alloc(-1)
	assert.ErrorContains(t, err, "negative")
	assert.ErrorContains(t, d.Write(b, 10, make([]byte, 7)), "outside the buffer")
	assert.ErrorContains(t, d.Read(b, -1, make([]byte, 1)), "outside the buffer")
	assert.ErrorContains(t, d.Write(ob, 0, []byte{1}), "another device")
	empty, err := d.Alloc(0)
	require.NoError(t, err)
	require.NoError(t, d.Write(empty, 0, nil))
	require.NoError(t, d.Read(empty, 0, nil))
	d.Free(b)
	assert.ErrorContains(t, d.Write(b, 0, []byte{1}), "freed")
	d.Free(b)
	assert.ErrorContains(t, d.Sync(), "freed", "a double Free surfaces at Sync")
	require.NoError(t, d.Sync())
}

func TestCloseReleasesEverything(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 64)
	for range 3 {
		_, err := d.Alloc(8)
		require.NoError(t, err)
	}
	require.NoError(t, d.Close())
	assert.Equal(t, 3, f.count(t, "cuMemFreeAsync"))
	assert.Equal(t, 1, f.count(t, "cuMemFreeHost"))
	assert.Equal(t, 1, f.count(t, "release 0"))
	_, err := d.Alloc(8)
	require.ErrorIs(t, err, device.ErrClosed)
	require.NoError(t, d.Close(), "a second Close does nothing")
}

func TestOpenFailureReleasesContext(t *testing.T) {
	f := buildFake(t, nil, nil)
	t.Setenv("SF_FAKE_CUDA_FAIL", "cuMemHostAlloc=2")
	l := loadLibs(f.env(nil))
	require.NoError(t, l.err)
	_, err := open(l.drv, l.nv, 0, 64)
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	assert.Contains(t, err.Error(), "cuMemHostAlloc")
	assert.Equal(t, 1, f.count(t, "release 0"))
	_, err = open(l.drv, l.nv, 1, 64)
	require.ErrorIs(t, err, device.ErrUnavailable)
}

func TestDeviceLostIsSticky(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 64)
	b, err := d.Alloc(8)
	require.NoError(t, err)
	t.Setenv("SF_FAKE_CUDA_FAIL", "cuStreamSynchronize=700*1")
	err = d.Sync()
	require.ErrorIs(t, err, device.ErrDeviceLost)
	assert.Contains(t, err.Error(), "cuStreamSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (700)")
	require.ErrorIs(t, d.Read(b, 0, make([]byte, 8)), device.ErrDeviceLost, "later calls report the loss")
	require.ErrorIs(t, d.Sync(), device.ErrDeviceLost)
}

// TestStagingDoubleBuffered checks the order of a chunked transfer's calls
// through the fake's log: a read queues the copy of the next chunk into
// the other half of the staging buffer before it waits for the current
// one (so the device's copy overlaps the host's), a write waits only for
// the half it is about to fill, and a read after a write waits for the
// write's copies before reusing a half. Without events (an old driver)
// the buffer is one piece and every chunk waits for the stream, as the
// data shows either way.
func TestStagingDoubleBuffered(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 64)
	b, err := d.Alloc(100)
	require.NoError(t, err)
	src := make([]byte, 100)
	for i := range src {
		src[i] = byte(3*i + 1)
	}
	start := len(f.calls(t))
	require.NoError(t, d.Write(b, 0, src))
	got := make([]byte, 100)
	require.NoError(t, d.Read(b, 0, got))
	assert.Equal(t, src, got)
	// 100 bytes in halves of 32: chunks of 32, 32, 32 and 4.
	assert.Equal(t, []string{
		"HtoDAsync 32", "HtoDAsync 32", "Synchronize", "HtoDAsync 32", "Synchronize", "HtoDAsync 4",
		"Synchronize", "DtoHAsync 32", "Synchronize", "DtoHAsync 32", "Synchronize",
		"DtoHAsync 32", "Synchronize", "DtoHAsync 4", "Synchronize", "Synchronize",
	}, seqWithSizes(f.calls(t)[start:]))

	g := buildFake(t, []string{"-DFAKE_NO_EVENTS"}, nil)
	e := g.open(t, 64)
	c, err := e.Alloc(100)
	require.NoError(t, err)
	require.NoError(t, e.Write(c, 0, src))
	require.NoError(t, e.Read(c, 0, got))
	assert.Equal(t, src, got)
	assert.Equal(t, 1, g.count(t, "cuMemcpyHtoDAsync 64"), "the whole buffer a chunk")
	assert.Equal(t, 1, g.count(t, "cuMemcpyDtoHAsync 36"))
}

// seqWithSizes returns the transfer and event-wait calls of log lines, the
// transfers with their sizes, without the "cuMemcpy"/"cuEvent" prefixes.
func seqWithSizes(lines []string) []string {
	var out []string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "cuMemcpy"):
			out = append(out, strings.TrimPrefix(l, "cuMemcpy"))
		case l == "cuEventSynchronize":
			out = append(out, "Synchronize")
		}
	}
	return out
}
