package pool

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReuseSameClass(t *testing.T) {
	dev := newFakeDevice(0, 0)
	p := New(dev)
	a, err := p.Alloc(1000)
	require.NoError(t, err)
	assert.Equal(t, int64(1000), a.Bytes)
	assert.Equal(t, int64(1024), a.Size())
	assert.GreaterOrEqual(t, a.Buf.Bytes(), a.Size())
	buf := a.Buf
	p.Free(a)
	assert.Nil(t, a.Buf, "Free clears the block's buffer")

	b, err := p.Alloc(900) // same class: 1024
	require.NoError(t, err)
	assert.Same(t, buf, b.Buf, "the cached buffer is handed out again")
	assert.NotSame(t, a, b, "a block handle is never reused")
	c, err := p.Alloc(2000) // another class: a device call
	require.NoError(t, err)
	assert.NotSame(t, buf, c.Buf)

	s := p.Stats()
	assert.Equal(t, int64(3), s.Allocs)
	assert.Equal(t, int64(1), s.Reuses)
	assert.Equal(t, int64(2), s.DeviceAllocs)
	assert.InDelta(t, 1.0/3, s.ReuseRate, 1e-12)
	assert.Equal(t, []int64{1024, 2048}, dev.allocArgs)
}

func TestReuseIsMostRecentFirst(t *testing.T) {
	p := New(newFakeDevice(0, 0))
	a, _ := p.Alloc(100)
	b, _ := p.Alloc(100)
	bufB := b.Buf
	p.Free(a)
	p.Free(b)
	c, err := p.Alloc(100)
	require.NoError(t, err)
	assert.Same(t, bufB, c.Buf, "the most recently freed (cache-warm) buffer comes first")
}

func TestZeroByteAlloc(t *testing.T) {
	dev := newFakeDevice(0, 0)
	p := New(dev)
	b, err := p.Alloc(0)
	require.NoError(t, err)
	assert.Equal(t, int64(0), b.Bytes)
	assert.Equal(t, int64(MinBlockBytes), b.Size())
	require.NotNil(t, b.Buf)
	assert.Equal(t, []int64{MinBlockBytes}, dev.allocArgs)
	p.Free(b)
}

func TestNegativeAllocPanics(t *testing.T) {
	p := New(newFakeDevice(0, 0))
	assert.PanicsWithValue(t, "pool: Alloc of negative size -5", func() { _, _ = p.Alloc(-5) })
}

func TestNewNilDevicePanics(t *testing.T) {
	assert.PanicsWithValue(t, "pool: New with a nil device", func() { New(nil) })
}

func TestPeakAndResetPeak(t *testing.T) {
	p := New(newFakeDevice(0, 0))
	a, _ := p.Alloc(4096)
	b, _ := p.Alloc(8192)
	p.Free(a)
	s := p.Stats()
	assert.Equal(t, int64(8192), s.BytesInUse)
	assert.Equal(t, int64(4096+8192), s.PeakBytesInUse)
	assert.Equal(t, int64(4096+8192), s.ReservedBytes)
	assert.Equal(t, int64(4096+8192), s.PeakReservedBytes)

	p.EmptyCache()
	p.ResetPeak()
	s = p.Stats()
	assert.Equal(t, int64(8192), s.PeakBytesInUse)
	assert.Equal(t, int64(8192), s.PeakReservedBytes)

	c, _ := p.Alloc(256)
	p.Free(c)
	p.Free(b)
	s = p.Stats()
	assert.Equal(t, int64(8192+256), s.PeakBytesInUse)
	assert.Equal(t, int64(0), s.BytesInUse)
}

func TestMaxAllocRefusedWithoutDeviceCall(t *testing.T) {
	const limit = 1 << 20
	dev := newFakeDevice(0, limit)
	p := New(dev)
	b, err := p.Alloc(limit + 1)
	require.Error(t, err)
	assert.Nil(t, b)
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "1048577 bytes")
	assert.Contains(t, err.Error(), "1048576 bytes")
	assert.Contains(t, err.Error(), "fake0")
	assert.Empty(t, dev.allocArgs, "the device is not called")

	// A request at the limit whose class would exceed it is clamped.
	b, err = p.Alloc(limit - 1000)
	require.NoError(t, err)
	assert.Equal(t, int64(limit), b.Size())
	assert.Equal(t, []int64{limit}, dev.allocArgs)
}

func TestOOMRetryEmptiesCache(t *testing.T) {
	dev := newFakeDevice(8192, 0)
	p := New(dev)
	a, err := p.Alloc(4096)
	require.NoError(t, err)
	b, err := p.Alloc(4096)
	require.NoError(t, err)
	p.Free(a)
	p.Free(b) // 8192 bytes cached, the device is full

	c, err := p.Alloc(6000) // another class: OOM, empty the cache, retry
	require.NoError(t, err)
	s := p.Stats()
	assert.Equal(t, int64(1), s.OOMRetries)
	assert.Equal(t, int64(2), s.DeviceFrees)
	assert.Equal(t, int64(0), s.CachedBytes)
	assert.Equal(t, ClassSize(6000), s.BytesInUse)
	assert.Equal(t, s.ReservedBytes, dev.usedBytes())
	assert.Equal(t, 1, dev.failures)
	p.Free(c)
}

func TestOOMRetryFailsWithWrappedError(t *testing.T) {
	dev := newFakeDevice(4096, 0)
	p := New(dev)
	a, err := p.Alloc(4096)
	require.NoError(t, err)
	b, err := p.Alloc(3000)
	require.Error(t, err)
	assert.Nil(t, b)
	assert.ErrorIs(t, err, device.ErrOutOfMemory)
	assert.Contains(t, err.Error(), "3000 bytes")
	s := p.Stats()
	assert.Equal(t, int64(1), s.OOMRetries)
	assert.Equal(t, 2, dev.failures, "one retry, no more")
	assert.Equal(t, int64(1), s.Allocs, "a failed Alloc is not counted")
	assert.Equal(t, int64(4096), s.BytesInUse)
	p.Free(a)
}

func TestOtherDeviceErrorIsNotRetried(t *testing.T) {
	dev := newFakeDevice(0, 0)
	dev.shortBy = 1 // a broken backend: buffers one byte short
	p := New(dev)
	b, err := p.Alloc(100)
	require.Error(t, err)
	assert.Nil(t, b)
	assert.Contains(t, err.Error(), "255-byte buffer for a 256-byte request")
	assert.Equal(t, int64(0), p.Stats().OOMRetries)
	assert.Equal(t, int64(0), dev.usedBytes(), "the short buffer is given back")
}

func TestDoubleFreePanics(t *testing.T) {
	p := New(newFakeDevice(0, 0))
	b, err := p.Alloc(300)
	require.NoError(t, err)
	p.Free(b)
	assert.PanicsWithValue(t, "pool: double free of a 300-byte block (class 512)", func() { p.Free(b) })

	// Still detected after the buffer went back to the device and after it
	// was handed out again to someone else.
	c, _ := p.Alloc(300)
	assert.Panics(t, func() { p.Free(b) })
	p.Free(c)
	p.EmptyCache()
	assert.Panics(t, func() { p.Free(c) })
	assert.Equal(t, 0, p.Stats().LiveBlocks)
}

func TestFreeOfForeignBlockPanics(t *testing.T) {
	p, q := New(newFakeDevice(0, 0)), New(newFakeDevice(0, 0))
	b, _ := q.Alloc(10)
	assert.PanicsWithValue(t, "pool: Free of a 10-byte block that belongs to another pool", func() { p.Free(b) })
	assert.NotPanics(t, func() { p.Free(nil) })
}

func TestEmptyCache(t *testing.T) {
	dev := newFakeDevice(0, 0)
	p := New(dev)
	var blocks []*Block
	for _, n := range []int64{10, 3000, 70000, 3000} {
		b, err := p.Alloc(n)
		require.NoError(t, err)
		blocks = append(blocks, b)
	}
	p.Free(blocks[0])
	p.Free(blocks[1])
	require.Equal(t, int64(256+ClassSize(3000)), p.Stats().CachedBytes)
	p.EmptyCache()
	s := p.Stats()
	assert.Equal(t, int64(0), s.CachedBytes)
	assert.Equal(t, 0, s.CachedBlocks)
	assert.Equal(t, int64(2), s.DeviceFrees)
	assert.Equal(t, s.BytesInUse, s.ReservedBytes)
	assert.Equal(t, s.ReservedBytes, dev.usedBytes())
	p.Free(blocks[2])
	p.Free(blocks[3])
	p.EmptyCache()
	assert.Equal(t, int64(0), dev.usedBytes())
}

func TestCacheLimitEvictsOldestAtNextAlloc(t *testing.T) {
	dev := newFakeDevice(0, 0)
	p := New(dev)
	p.SetCacheLimit(2048)
	assert.Equal(t, int64(2048), p.CacheLimit())
	var blocks []*Block
	for range 4 {
		b, err := p.Alloc(1024)
		require.NoError(t, err)
		blocks = append(blocks, b)
	}
	bufs := []any{blocks[0].Buf, blocks[1].Buf, blocks[2].Buf, blocks[3].Buf}
	for _, b := range blocks {
		p.Free(b)
	}
	s := p.Stats()
	assert.Equal(t, int64(2048), s.CachedBytes)
	assert.Equal(t, int64(4096), s.ReservedBytes, "evicted buffers are held until the next Alloc")
	assert.Equal(t, 0, dev.frees, "Free never calls the device")

	b, err := p.Alloc(1024)
	require.NoError(t, err)
	assert.Same(t, bufs[3], b.Buf, "the newest buffers were kept")
	assert.Equal(t, 2, dev.frees)
	s = p.Stats()
	assert.Equal(t, int64(1024), s.CachedBytes)
	assert.Equal(t, int64(2048), s.ReservedBytes)
	assert.Equal(t, s.ReservedBytes, dev.usedBytes())

	p.SetCacheLimit(0) // no caching at all
	p.Free(b)
	p.EmptyCache()
	assert.Equal(t, int64(0), dev.usedBytes())
	p.SetCacheLimit(-1)
	assert.Equal(t, int64(-1), p.CacheLimit())
}

// TestStatsAgainstModel runs random allocs and frees and checks every stat
// against a model kept by the test, and the device's own accounting.
func TestStatsAgainstModel(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	dev := newFakeDevice(0, 0)
	p := New(dev)
	var live []*Block
	var allocs, reuses, inUse, requested, peak int64
	free := map[int64]int{} // model of cached blocks per class
	for step := range 3000 {
		if len(live) > 0 && rng.IntN(2) == 0 {
			i := rng.IntN(len(live))
			b := live[i]
			live = append(live[:i], live[i+1:]...)
			p.Free(b)
			free[b.size]++
			inUse -= b.size
			requested -= b.Bytes
		} else {
			n := rng.Int64N(1 << uint(rng.IntN(20)))
			b, err := p.Alloc(n)
			require.NoError(t, err)
			live = append(live, b)
			if free[b.size] > 0 {
				free[b.size]--
				reuses++
			}
			allocs++
			inUse += b.size
			requested += n
			peak = max(peak, inUse)
		}
		s := p.Stats()
		var cached int64
		nCached := 0
		for size, k := range free {
			cached += size * int64(k)
			nCached += k
		}
		require.Equal(t, allocs, s.Allocs, "seed %d step %d", seed, step)
		require.Equal(t, reuses, s.Reuses, "seed %d step %d", seed, step)
		require.Equal(t, s.Allocs, s.Reuses+s.DeviceAllocs, "seed %d step %d", seed, step)
		require.Equal(t, inUse, s.BytesInUse, "seed %d step %d", seed, step)
		require.Equal(t, inUse, p.BytesInUse(), "seed %d step %d", seed, step)
		require.Equal(t, requested, s.RequestedBytes, "seed %d step %d", seed, step)
		require.Equal(t, peak, s.PeakBytesInUse, "seed %d step %d", seed, step)
		require.Equal(t, cached, s.CachedBytes, "seed %d step %d", seed, step)
		require.Equal(t, nCached, s.CachedBlocks, "seed %d step %d", seed, step)
		require.Equal(t, len(live), s.LiveBlocks, "seed %d step %d", seed, step)
		require.Equal(t, s.BytesInUse+s.CachedBytes, s.ReservedBytes, "seed %d step %d", seed, step)
		require.Equal(t, s.ReservedBytes, dev.usedBytes(), "seed %d step %d", seed, step)
	}
}

// TestLoopHoldsMemoryFlat is a 10 000-step "training loop": each step
// allocates a few tensors of fixed sizes and frees them. After the first step
// the device is never called again and every figure stays the same.
func TestLoopHoldsMemoryFlat(t *testing.T) {
	dev := newFakeDevice(0, 0)
	p := New(dev)
	sizes := []int64{4 * 784 * 128, 4 * 128, 4 * 128 * 10, 4 * 10, 4 * 64 * 784, 0, 1}
	step := func() {
		blocks := make([]*Block, len(sizes))
		for i, n := range sizes {
			b, err := p.Alloc(n)
			require.NoError(t, err)
			blocks[i] = b
		}
		for _, b := range blocks {
			p.Free(b)
		}
	}
	step()
	first := p.Stats()
	for range 9999 {
		step()
	}
	last := p.Stats()
	assert.Equal(t, first.DeviceAllocs, last.DeviceAllocs)
	assert.Equal(t, int64(0), last.DeviceFrees)
	assert.Equal(t, first.ReservedBytes, last.ReservedBytes)
	assert.Equal(t, first.PeakBytesInUse, last.PeakBytesInUse)
	assert.Equal(t, first.PeakReservedBytes, last.PeakReservedBytes)
	assert.Equal(t, first.CachedBytes, last.CachedBytes)
	assert.Equal(t, int64(0), last.BytesInUse)
	assert.Equal(t, 0, last.LiveBlocks)
	assert.Equal(t, int64(10000*len(sizes)), last.Allocs)
	assert.Equal(t, last.Allocs-first.DeviceAllocs, last.Reuses)
	assert.Equal(t, last.ReservedBytes, dev.usedBytes())
}

func TestConcurrentAllocFree(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	dev := newFakeDevice(0, 0)
	p := New(dev)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(g)))
			var mine []*Block
			for range 2000 {
				if len(mine) > 0 && rng.IntN(2) == 0 {
					p.Free(mine[len(mine)-1])
					mine = mine[:len(mine)-1]
					continue
				}
				b, err := p.Alloc(rng.Int64N(100000))
				if err != nil {
					t.Error(err)
					return
				}
				mine = append(mine, b)
			}
			for _, b := range mine {
				p.Free(b)
			}
		}()
	}
	wg.Wait()
	s := p.Stats()
	assert.Equal(t, 0, s.LiveBlocks)
	assert.Equal(t, int64(0), s.BytesInUse)
	assert.Equal(t, s.CachedBytes, s.ReservedBytes)
	assert.Equal(t, s.ReservedBytes, dev.usedBytes())
	p.EmptyCache()
	assert.Equal(t, int64(0), dev.usedBytes())
}

func TestStatsString(t *testing.T) {
	p := New(newFakeDevice(0, 0))
	a, _ := p.Alloc(3 << 20)
	b, _ := p.Alloc(100)
	p.Free(b)
	b, _ = p.Alloc(100)
	s := p.Stats().String()
	t.Log("\n" + s)
	assert.Contains(t, s, "3 allocs, 1 reused (33.3%), 2 device allocs")
	assert.Contains(t, s, "in use   3.00 MiB in 2 blocks")
	assert.Contains(t, s, "0 OOM retries")
	p.Free(a)
	p.Free(b)
}

func TestFormatBytes(t *testing.T) {
	assert.Equal(t, "0 B", FormatBytes(0))
	assert.Equal(t, "1023 B", FormatBytes(1023))
	assert.Equal(t, "1.00 KiB", FormatBytes(1024))
	assert.Equal(t, "1.50 MiB", FormatBytes(3<<19))
	assert.Equal(t, "-2.00 GiB", FormatBytes(-2<<30))
	assert.Equal(t, "8.00 EiB", FormatBytes(1<<63-1))
}

func TestErrTooLargeIsNotOOM(t *testing.T) {
	p := New(newFakeDevice(0, 1024))
	_, err := p.Alloc(2048)
	assert.False(t, errors.Is(err, device.ErrOutOfMemory))
}

func BenchmarkAllocFreeReuse(b *testing.B) {
	p := New(newFakeDevice(0, 0))
	b.ReportAllocs()
	for b.Loop() {
		blk, err := p.Alloc(1 << 20)
		if err != nil {
			b.Fatal(err)
		}
		p.Free(blk)
	}
}

func TestRecycledEntriesAreBounded(t *testing.T) {
	dev := newFakeDevice(0, 0)
	p := New(dev)
	blocks := make([]*Block, 3*maxSpare)
	for i := range blocks {
		b, err := p.Alloc(int64(i % 3000))
		require.NoError(t, err)
		blocks[i] = b
	}
	for _, b := range blocks {
		p.Free(b)
	}
	p.EmptyCache()
	assert.Len(t, p.cache.spare, maxSpare)
	assert.Equal(t, int64(0), dev.usedBytes())
}
