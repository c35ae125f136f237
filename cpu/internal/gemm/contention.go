package gemm

import (
	"sync/atomic"
	"time"

	"github.com/shaderflow/shaderflow/internal/workpool"
)

// On a machine with more runnable threads than cores, the operating system
// deschedules helper threads for whole time slices (milliseconds), and the
// caller, having finished its share, waits for the tasks they hold: a
// parallel product can then take several times longer than a serial one.
// The caller therefore times its waits. When they exceed half of a
// product's duration and minStall, products run on the caller alone for a
// while: 64 times the wait (a descheduled thread tends to be descheduled
// again, and a stall of milliseconds outweighs what parallelism saves on
// many small products), at least minSerial and at most maxSerial, and at
// least twice the previous while if the parallel product that probes
// afterwards is contended again. An uncontended parallel product resets the
// doubling.
//
// With dedicated cores the waits stay under one task's duration: a helper
// woken late (tens of microseconds on a virtual machine) may still be
// computing its last macro tile when the caller runs out of work, up to a
// quarter of a small product that splits into eight tiles. Since the CPU
// backend's products all adapt, that must not count as contention: serial
// spans let the helpers park, so the next probe would find them late again.

// minStall is the least wait that counts as contention.
const minStall = 50 * time.Microsecond

const (
	minSerial = time.Millisecond
	maxSerial = 256 * time.Millisecond
)

var (
	serialUntil atomic.Int64 // products run serially until this time (UnixNano)
	serialSpan  atomic.Int64 // the next serial span (0: minSerial)
)

// contended reports whether products should currently run serially.
func contended() bool {
	until := serialUntil.Load()
	return until != 0 && time.Now().UnixNano() < until
}

// waitClock accumulates the time the caller spends waiting for helpers.
type waitClock struct{ waited time.Duration }

// waitUntil polls until done reports true (workpool.Await), then yields
// between polls, and adds the time spent to w when w is not nil. The waits
// are short unless a helper was descheduled: they end when tasks already
// running on other workers finish. Yielding at once had made a third of
// the MLP's large products serial: the caller came back tens of
// microseconds late from the data loader's gather, and the contention
// fallback took that for a descheduled helper.
func (w *waitClock) waitUntil(done func() bool) {
	if done() {
		return
	}
	t0 := time.Now()
	if !workpool.Await(done) {
		for !done() {
			yield()
		}
	}
	if w != nil {
		w.waited += time.Since(t0)
	}
}

// report records the outcome of a parallel product that took elapsed.
func (w *waitClock) report(elapsed time.Duration) {
	if w.waited*2 <= elapsed || w.waited < minStall {
		serialSpan.Store(0)
		return
	}
	span := max(64*w.waited, 2*time.Duration(serialSpan.Load()))
	span = min(max(span, minSerial), maxSerial)
	serialSpan.Store(int64(span))
	serialUntil.Store(time.Now().Add(span).UnixNano())
}

// resetContention forgets past contention (tests).
func resetContention() {
	serialUntil.Store(0)
	serialSpan.Store(0)
}
