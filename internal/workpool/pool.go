package workpool

import (
	"runtime"
	"sync"
	"time"
)

// Spin is how long an idle helper polls for offers before it parks. A
// training step's serial parts (building the next graph, copying a batch in)
// last some tens to a few hundred microseconds; a helper that spins past
// them joins the next kernel without being woken.
const Spin = 500 * time.Microsecond

// pollsPerYield is how many empty polls a spinning helper makes between
// yields to the scheduler (each poll is a non-blocking channel receive, a
// few nanoseconds). Yielding lets other goroutines run when there are more
// runnable goroutines than processors, while yielding on every poll would
// contend on the scheduler's lock with the goroutines doing the work.
const pollsPerYield = 2048

// Joiner is work that helpers can join: Join runs one helper's share and
// returns when it finds nothing left to do.
type Joiner interface {
	Join()
}

var pool struct {
	mu      sync.Mutex
	started int
	offers  chan Joiner
}

func init() { pool.offers = make(chan Joiner, 64) }

// Offer asks up to n helpers to join j, starting helpers as needed. It never
// blocks: an offer no helper takes in time finds j done and lapses, so j
// must be safe to join after its caller has returned.
func Offer(j Joiner, n int) {
	if n <= 0 {
		return
	}
	pool.mu.Lock()
	for pool.started < n {
		pool.started++
		go helper()
	}
	pool.mu.Unlock()
	for range n {
		select {
		case pool.offers <- j:
		default:
			return
		}
	}
}

// helper joins offered work forever, polling between offers for Spin and
// then parking until the next one.
func helper() {
	for {
		j := poll()
		if j == nil {
			j = <-pool.offers
		}
		j.Join()
	}
}

// poll returns the next offer taken within Spin, or nil.
func poll() Joiner {
	deadline := time.Now().Add(Spin)
	for {
		for range pollsPerYield {
			select {
			case j := <-pool.offers:
				return j
			default:
			}
		}
		if time.Now().After(deadline) {
			return nil
		}
		runtime.Gosched()
	}
}
