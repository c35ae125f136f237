package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// barrier is a reusable barrier for a fixed number of goroutines. Waiters
// spin briefly (phases of a matrix product are short) and then sleep.
type barrier struct {
	n       int32
	arrived atomic.Int32
	gen     atomic.Uint32
	mu      sync.Mutex
	cond    sync.Cond
}

// barrierSpins is how many times a waiter yields before it sleeps.
const barrierSpins = 200

func newBarrier(n int) *barrier {
	b := &barrier{n: int32(n)}
	b.cond.L = &b.mu
	return b
}

// wait blocks until all n goroutines have called wait.
func (b *barrier) wait() {
	gen := b.gen.Load()
	if b.arrived.Add(1) == b.n {
		b.arrived.Store(0)
		b.mu.Lock()
		b.gen.Add(1)
		b.cond.Broadcast()
		b.mu.Unlock()
		return
	}
	for i := 0; i < barrierSpins; i++ {
		if b.gen.Load() != gen {
			return
		}
		runtime.Gosched()
	}
	b.mu.Lock()
	for b.gen.Load() == gen {
		b.cond.Wait()
	}
	b.mu.Unlock()
}
