package cpu

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/shaderflow/shaderflow/cpu/internal/gemm"
	"github.com/shaderflow/shaderflow/internal/workpool"
)

// parallelFor runs body(w, lo, hi) over [0, n) split into tasks of grain
// items (the last may be shorter), on up to d.workers goroutines: the
// caller (worker 0) and helpers of the process-wide pool
// (internal/workpool) that lives across kernels, so a kernel starts no
// goroutine. w is the worker index, unique among the goroutines running the
// call, so a body may use d.ws[w] as its scratch. Tasks are taken
// dynamically, so uneven tasks balance, and the caller returns as soon as
// every task is done: a helper that joins late finds nothing left to do. A
// panic in a body (a bug, since kernels are validated) becomes the returned
// error instead of crashing the process.
//
// While the machine looks oversubscribed (gemm.Contended: helpers that
// were polling did not get to run during a product), the caller runs
// every task itself and offers nothing, so that the held helpers stay
// parked.
//
// Callers with little work should call their body inline instead: creating
// the closure for parallelFor allocates.
func (d *Device) parallelFor(n, grain int, body func(w, lo, hi int)) error {
	if n <= 0 {
		return nil
	}
	grain = max(grain, 1)
	j := &job{body: body, n: n, grain: grain, tasks: (n + grain - 1) / grain, fin: make(chan struct{})}
	j.seats = int64(min(d.workers, j.tasks))
	if gemm.Contended() {
		j.seats = 1
	}
	workpool.Offer(j, int(j.seats)-1)
	j.work(0)
	j.wait()
	return j.err
}

// wait returns when every task of j is done: it polls for the helpers'
// last tasks (workpool.Await), then blocks.
func (j *job) wait() {
	if !workpool.Await(func() bool { return j.done.Load() == int64(j.tasks) }) {
		<-j.fin
	}
}

// job is one parallelFor call shared by the caller and the helpers.
type job struct {
	body            func(w, lo, hi int)
	n, grain, tasks int
	seats           int64        // worker indices below seats may work
	joined          atomic.Int64 // helpers that asked for a worker index
	next, done      atomic.Int64
	fin             chan struct{} // closed when every task is done
	errMu           sync.Mutex
	err             error
}

// Join runs tasks of j as the next free worker index, if one is left.
func (j *job) Join() {
	if w := j.joined.Add(1); w < j.seats {
		j.work(int(w))
	}
}

// work runs tasks of j as worker w until none is left.
func (j *job) work(w int) {
	for {
		t := int(j.next.Add(1) - 1)
		if t >= j.tasks {
			return
		}
		j.task(w, t)
		if j.done.Add(1) == int64(j.tasks) {
			close(j.fin)
		}
	}
}

// task runs task t, recording a panic as the job's error.
func (j *job) task(w, t int) {
	defer func() {
		if r := recover(); r != nil {
			j.errMu.Lock()
			if j.err == nil {
				j.err = fmt.Errorf("cpu: internal error: %v\n%s", r, debug.Stack())
			}
			j.errMu.Unlock()
		}
	}()
	lo := t * j.grain
	j.body(w, lo, min(j.n, lo+j.grain))
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

// runTasks runs fn(ws, t) for tasks [0, n), each worth cost operations:
// inline when the total is small, else in parallel in groups of tasks big
// enough to amortize scheduling.
func (d *Device) runTasks(n, cost int, fn func(ws *workspace, t int)) error {
	if n == 1 || d.serial(n, cost) {
		ws := d.ws[0]
		return safely(func() {
			for t := 0; t < n; t++ {
				fn(ws, t)
			}
		})
	}
	return d.parallelFor(n, d.grainFor(n, cost), func(w, lo, hi int) {
		for t := lo; t < hi; t++ {
			fn(d.ws[w], t)
		}
	})
}
