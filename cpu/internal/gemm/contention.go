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
// More often on such a machine the helper is not running when the product
// is offered, and the caller computes almost every tile itself without
// waiting: the product gains nothing from the helper, which meanwhile polls
// on a core that the caller's own next steps need (docs/cpu-speed.md has
// the MLP measurements). So a product offered while a helper was polling
// (workpool.Spinning), in which the helpers computed under a quarter of
// their share of the tiles, counts as contended too, as long as the span
// rule above with no wait (minSerial, then doubling). While products run
// serially the helpers are held (workpool.Hold): they park instead of
// polling, and the backend's other parallel loops run on the caller alone.
//
// With dedicated cores the waits stay under one task's duration: a helper
// woken late (tens of microseconds on a virtual machine) may still be
// computing its last macro tile when the caller runs out of work, up to a
// quarter of a small product that splits into eight tiles. Since the CPU
// backend's products all adapt, that must not count as contention: serial
// spans let the helpers park, so the next probe would find them late again.
// For the same reason a product offered while no helper polled is not
// judged by its helpers' share, and only a judged product with a fair share
// resets the doubling.

// minStall is the least wait that counts as contention.
const minStall = 50 * time.Microsecond

const (
	minSerial = time.Millisecond
	maxSerial = 256 * time.Millisecond
)

// serialSpan is the next serial span (0: minSerial); the current one ends
// when workpool.Held turns false.
var serialSpan atomic.Int64

// contended reports whether products should currently run serially.
func contended() bool { return workpool.Held() }

// Contended reports whether the machine currently looks oversubscribed, so
// that parallel loops should run on their caller alone.
func Contended() bool { return contended() }

// waitClock accumulates the time the caller spends waiting for helpers.
type waitClock struct {
	waited time.Duration
	// judged: a helper was polling when the product was offered, so its
	// share of the tiles tells whether it was running.
	judged bool
}

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

// report records the outcome of a parallel product that took elapsed, in
// which the helpers computed helperTiles of tiles macro tiles on threads
// workers (tiles 0: not counted).
func (w *waitClock) report(elapsed time.Duration, helperTiles, tiles, threads int) {
	stalled := w.waited*2 > elapsed && w.waited >= minStall
	absent := w.judged && tiles >= 2*threads && helperTiles*4*threads < tiles*(threads-1)
	if !stalled && !absent {
		if w.judged || tiles == 0 {
			serialSpan.Store(0)
		}
		return
	}
	span := max(64*w.waited, 2*time.Duration(serialSpan.Load()))
	span = min(max(span, minSerial), maxSerial)
	serialSpan.Store(int64(span))
	workpool.Hold(time.Now().Add(span))
}

// resetContention forgets past contention (tests).
func resetContention() {
	workpool.Hold(time.Time{})
	serialSpan.Store(0)
}
