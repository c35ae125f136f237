package workpool

import "time"

// AwaitSpin is how long a worker waiting for other workers' last tasks
// polls before it gives up its processor. Such waits end within a few
// microseconds unless a worker was descheduled; giving the processor up at
// once hands it to whatever goroutine is queued there (in training, the
// data loader's gather of the next batch, ~40 µs), and getting it back, or
// waking a parked goroutine, takes tens of microseconds on a virtual
// machine.
const AwaitSpin = 100 * time.Microsecond

// Await polls done until it reports true or AwaitSpin has passed, and
// returns done's last answer: on false the caller yields or blocks until it
// is done.
func Await(done func() bool) bool {
	t0 := time.Now()
	for polls := 1; !done(); polls++ {
		if polls%64 == 0 && time.Since(t0) > AwaitSpin {
			return done()
		}
	}
	return true
}
