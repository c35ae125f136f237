package vec

import (
	"sync"
	"time"
)

// MeasureBandwidth measures this machine's memory bandwidth the way STREAM's
// triad does: a[i] = b[i] + q*c[i] over three float32 arrays of bytes/3 bytes
// in all (split into threads contiguous parts, one goroutine each), with the
// current level's kernel. It returns the best of several timed passes after
// a warm-up pass, in GB/s (1e9 bytes per second), counting 12 bytes per
// element as STREAM does (the write-allocate read of a is not counted).
// bytes should be well above the last-level cache size (e.g. 3<<28) for a
// DRAM figure; threads below 1 count as 1.
func MeasureBandwidth(threads int, bytes int) (gbps float64) {
	n := max(bytes/12, 16)
	a, b, c := make([]float32, n), make([]float32, n), make([]float32, n)
	parallel(threads, n, func(lo, hi int) { // first touch in the threads that use it
		for i := lo; i < hi; i++ {
			a[i], b[i], c[i] = 0, 1, 2
		}
	})
	k := current
	pass := func() time.Duration {
		start := time.Now()
		parallel(threads, n, func(lo, hi int) { k.triad(a[lo:hi], b[lo:hi], c[lo:hi], 3) })
		return time.Since(start)
	}
	pass()
	best := time.Duration(1<<63 - 1)
	for range 7 {
		best = min(best, pass())
	}
	return float64(12*n) / best.Seconds() / 1e9
}

// parallel runs f over threads contiguous parts of [0, n), the boundaries
// aligned to 16 elements (64 bytes), and waits for all of them.
func parallel(threads, n int, f func(lo, hi int)) {
	threads = max(threads, 1)
	if threads == 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	per := (n/threads + 15) &^ 15
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}
