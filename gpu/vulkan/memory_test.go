//go:build cgo

package vulkan

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// rssBytes returns the process's resident set size.
func rssBytes(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	require.NoError(t, err)
	return pages * int64(os.Getpagesize())
}

// settled returns the resident set size and the live Go heap after a
// garbage collection.
func settled(t *testing.T) (rss, heap int64) {
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return rssBytes(t), int64(ms.HeapAlloc)
}

// TestAllocRunFreeLoop runs 10 000 iterations of allocate, write, kernel,
// free and checks that the device's allocations and the process's memory
// stay flat.
func TestAllocRunFreeLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("long loop")
	}
	d := openDevice(t)
	const n = 1024
	data := make([]float32, n)
	for i := range data {
		data[i] = float32(i)
	}
	src := f32Bytes(data)
	iter := func(i int) {
		a := alloc(t, d, 4*n)
		require.NoError(t, d.Write(a, 0, src))
		b := alloc(t, d, 4*n)
		require.NoError(t, d.Elementwise(unaryKernel(a, b, n, device.OpNeg)))
		if i%1000 == 0 {
			got := bytesF32(download(t, d, b, 4*n))
			require.Equal(t, -data[n-1], got[n-1])
		}
		d.Free(a)
		d.Free(b)
	}
	for i := 0; i < 200; i++ { // warm up caches and pools
		iter(i)
	}
	require.NoError(t, d.Sync())
	live, mems := len(d.live), d.memCount
	var rss, heap int64
	for i := 0; i < 10_000; i++ {
		iter(i)
		if i == 2499 {
			// The C allocators (the driver's per-thread malloc arenas)
			// settle in the first thousands of iterations.
			rss, heap = settled(t)
		}
	}
	require.NoError(t, d.Sync())
	assert.Equal(t, live, len(d.live), "live buffers")
	assert.Equal(t, mems, d.memCount, "device memory objects")
	rss2, heap2 := settled(t)
	t.Logf("over the last 7 500 iterations: resident memory %+d KiB, Go heap %+d KiB", (rss2-rss)>>10, (heap2-heap)>>10)
	assert.Less(t, heap2-heap, int64(1<<20), "the Go heap must stay flat")
	// Leaking the two 4 KiB buffers of each iteration would add 60 MiB;
	// allocator noise stays well below this bound.
	assert.Less(t, rss2-rss, int64(24<<20), "resident memory must stay flat")
}
