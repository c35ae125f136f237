package gemm

import "sync/atomic"

// job is one product offered to the helpers of internal/workpool.
type job struct {
	s      *shared
	nextID atomic.Int32 // worker ids; the caller is 0
	seats  int32        // ids below seats may work
}

// Join runs a helper's share of the product if a seat is left.
func (j *job) Join() {
	if id := j.nextID.Add(1) - 1; id < j.seats {
		j.s.work(int(id))
	}
}
