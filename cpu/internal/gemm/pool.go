package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Helpers are long-lived goroutines that join products. Starting a goroutine
// per product costs little, but waking the idle processor that runs it can
// take tens of microseconds on a virtual machine, as long as a whole 128³
// product; so helpers, after finishing their share, poll for the next product
// for helperSpin before they park. Back-to-back products (a training loop)
// thus find them awake. The pool grows to GOMAXPROCS-1 helpers and never
// shrinks; parked helpers cost only their stacks.

// helperSpin is how long an idle helper polls before parking.
const helperSpin = 100 * time.Microsecond

// job is one product offered to helpers.
type job struct {
	s      *shared
	nextID atomic.Int32 // worker ids; the caller is 0
	seats  int32        // ids below seats may work
}

var helpers struct {
	mu      sync.Mutex
	started int
	offers  chan *job
}

func init() { helpers.offers = make(chan *job, 64) }

// offer asks up to n helpers to join j, starting helpers as needed. It never
// blocks: offers that no helper takes in time find the work done and lapse.
func offer(j *job, n int) {
	helpers.mu.Lock()
	for helpers.started < n {
		helpers.started++
		go helperLoop()
	}
	helpers.mu.Unlock()
	for range n {
		select {
		case helpers.offers <- j:
		default:
			return
		}
	}
}

// helperLoop runs offered jobs forever, polling between jobs for helperSpin
// and then parking on the offers channel.
func helperLoop() {
	for {
		var j *job
		deadline := time.Now().Add(helperSpin)
		for spins := 0; j == nil; spins++ {
			select {
			case j = <-helpers.offers:
				continue
			default:
			}
			if spins%64 == 63 && time.Now().After(deadline) {
				break
			}
			runtime.Gosched()
		}
		if j == nil {
			j = <-helpers.offers
		}
		if id := j.nextID.Add(1) - 1; id < j.seats {
			j.s.work(int(id))
		}
	}
}
