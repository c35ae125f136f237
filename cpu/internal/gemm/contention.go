package gemm

import (
	"sync/atomic"
	"time"
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

// waitSpin is how long a waiting worker polls before it yields its
// processor between polls. The waits are short unless a helper was
// descheduled (they end when tasks already running on other workers
// finish), and yielding at once handed the processor to whatever goroutine
// was queued on it: in training, the data loader's gather of the next batch
// (~40 µs), so that a caller that had to wait 5 µs for the last tile came
// back tens of microseconds later, and the contention fallback (which took
// those waits for a descheduled helper) made a third of the MLP's large
// products serial.
const waitSpin = 100 * time.Microsecond

// waitUntil polls until done reports true, yielding after waitSpin, and
// adds the time spent to w when w is not nil.
func (w *waitClock) waitUntil(done func() bool) {
	if done() {
		return
	}
	t0 := time.Now()
	for polls := 1; !done(); polls++ {
		if polls%64 == 0 && time.Since(t0) > waitSpin {
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
