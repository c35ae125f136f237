package cpu

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// parallelFor runs body(w, lo, hi) over [0, n) split into tasks of grain
// items (the last may be shorter), on up to d.workers goroutines including
// the caller; w is the worker index in [0, d.workers), so a body may use
// d.ws[w] as its scratch. Tasks are taken dynamically, so uneven tasks
// balance. A panic in a body (a bug, since kernels are validated) becomes the
// returned error instead of crashing the process.
//
// Callers with little work should call their body inline instead: creating
// the closure for parallelFor allocates.
func (d *Device) parallelFor(n, grain int, body func(w, lo, hi int)) (err error) {
	if n <= 0 {
		return nil
	}
	grain = max(grain, 1)
	tasks := (n + grain - 1) / grain
	nw := min(d.workers, tasks)
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	run := func(w int) {
		defer func() {
			if r := recover(); r != nil {
				errMu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("cpu: internal error: %v\n%s", r, debug.Stack())
				}
				errMu.Unlock()
			}
		}()
		for {
			t := int(next.Add(1) - 1)
			if t >= tasks {
				return
			}
			lo := t * grain
			body(w, lo, min(n, lo+grain))
		}
	}
	for w := 1; w < nw; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(w)
		}()
	}
	run(0)
	wg.Wait()
	return firstErr
}

// grainFor splits n items of the given cost (a rough count of operations per
// item) into tasks big enough to amortize scheduling and numerous enough to
// balance across workers.
func (d *Device) grainFor(n, cost int) int {
	const minWork = 1 << 15 // operations per task
	g := max(minWork/max(cost, 1), 1)
	if per := (n + 4*d.workers - 1) / (4 * d.workers); per > g {
		g = per
	}
	return g
}

// serial reports whether n items of the given cost are too little work to
// share among workers.
func (d *Device) serial(n, cost int) bool {
	return d.workers == 1 || n*max(cost, 1) < 1<<16
}

// safely runs f on the caller, turning a panic into an error.
func safely(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cpu: internal error: %v\n%s", r, debug.Stack())
		}
	}()
	f()
	return nil
}
