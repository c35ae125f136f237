package gemm

import (
	"sync/atomic"
	"time"
)

// On a machine with more runnable threads than cores, the operating system
// deschedules helper threads for whole time slices (milliseconds), and the
// caller, having finished its share, waits for the tasks they hold: a
// parallel product can then take several times longer than a serial one.
// The caller therefore times its waits. When they exceed a quarter of a
// product's duration (with dedicated cores they stay under one task's
// duration, a few percent), the next serialAfterContention products run on
// the caller alone, after which products are parallel again.

// serialAfterContention is how many products run serially after one that
// waited too long.
const serialAfterContention = 16

// serialLeft counts the products still to run serially.
var serialLeft atomic.Int32

// contended reports whether this product should run serially, using up one
// of the serial products a contended one asked for.
func contended() bool {
	for {
		n := serialLeft.Load()
		if n <= 0 {
			return false
		}
		if serialLeft.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// waitClock accumulates the time the caller spends waiting for helpers.
type waitClock struct{ waited time.Duration }

// waitUntil yields until done reports true, adding the time spent to w
// when w is not nil. The waits are short unless a helper was descheduled:
// they end when tasks already running on other workers finish.
func (w *waitClock) waitUntil(done func() bool) {
	if done() {
		return
	}
	var t0 time.Time
	if w != nil {
		t0 = time.Now()
	}
	for !done() {
		yield()
	}
	if w != nil {
		w.waited += time.Since(t0)
	}
}

// report marks the products after this one serial when the caller waited
// more than a quarter of elapsed.
func (w *waitClock) report(elapsed time.Duration) {
	if w.waited*4 > elapsed {
		serialLeft.Store(serialAfterContention)
	}
}
