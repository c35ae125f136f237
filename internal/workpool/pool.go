package workpool

import (
	"runtime"
	"sync"
	"sync/atomic"
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
	mu       sync.Mutex
	started  int
	offers   chan Joiner
	spinning atomic.Int32 // helpers inside poll
	heldTill atomic.Int64 // UnixNano until which idle helpers park at once
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

// poll returns the next offer taken within Spin, or nil. It returns nil
// early while helpers are held (Hold).
func poll() Joiner {
	pool.spinning.Add(1)
	defer pool.spinning.Add(-1)
	deadline := time.Now().Add(Spin)
	for {
		for range pollsPerYield {
			select {
			case j := <-pool.offers:
				return j
			default:
			}
		}
		if now := time.Now(); now.After(deadline) || now.UnixNano() < pool.heldTill.Load() {
			return nil
		}
		runtime.Gosched()
	}
}

// Spinning returns how many helpers are polling for offers now. An offer
// made while one polls is taken within microseconds unless the operating
// system has descheduled its thread; a parked helper takes tens of
// microseconds to wake.
func Spinning() int { return int(pool.spinning.Load()) }

// Hold makes idle helpers park at once instead of polling, until t (a zero
// t releases them). Callers hold the helpers while they run their parallel
// work on their own goroutine because the machine has more runnable
// threads than cores: a polling helper then only takes a core from
// another thread, the caller's included. Offers are still taken by parked
// helpers, which wake for them.
func Hold(t time.Time) {
	if t.IsZero() {
		pool.heldTill.Store(0)
		return
	}
	pool.heldTill.Store(t.UnixNano())
}

// Held reports whether helpers are held now (see Hold).
func Held() bool {
	until := pool.heldTill.Load()
	return until != 0 && time.Now().UnixNano() < until
}
