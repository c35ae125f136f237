package gemm

import "sync/atomic"

// Tasks (panels to pack, macro tiles) are claimed from queues with one range
// per worker: a worker takes the tasks of its own range first and then
// those left in the others'. The ranges are laid out so that a worker
// computes the tiles whose panels of B it packed itself: measured on the
// development machine, the compute phase of the training products ran
// 14–23% slower (thread CPU time) on panels packed by the other core than
// on panels packed by its own, which pulls them out of its own L2. A worker
// that starts late, or never, loses nothing: its range is taken by the
// others.

// taskRange is one worker's range of task numbers, [next, end) still to be
// claimed. It fills a cache line so that workers claiming from their own
// ranges do not contend for one.
type taskRange struct {
	next atomic.Int64
	end  int64
	_    [cacheLine - 16]byte
}

// taskQueue is a set of task numbers split into per-worker ranges.
type taskQueue struct {
	ranges []taskRange
}

// resize sets the number of ranges, reusing q's storage.
func (q *taskQueue) resize(n int) {
	if cap(q.ranges) < n {
		q.ranges = make([]taskRange, n)
	}
	q.ranges = q.ranges[:n]
}

// set makes range w hold tasks [start, end).
func (q *taskQueue) set(w, start, end int) {
	q.ranges[w].next.Store(int64(start))
	q.ranges[w].end = int64(end)
}

// claim returns the next task for worker w: from its own range while it
// lasts, then from the others' in turn; -1 when every task is claimed.
func (q *taskQueue) claim(w int) int {
	n := len(q.ranges)
	for i := 0; i < n; i++ {
		r := &q.ranges[(w+i)%n]
		if r.next.Load() >= r.end {
			continue
		}
		if t := r.next.Add(1) - 1; t < r.end {
			return int(t)
		}
	}
	return -1
}
