package tensor

import (
	"runtime"
	"time"
	"weak"
)

// reclaimFloor is the least growth of the bytes in use, since the last
// reclaim, that triggers the next: it keeps small working sets from running
// a garbage collection every few operations. MaxReclaimGrowth's comment
// quotes it.
const reclaimFloor = 64 << 20

// minPrune is the registry length below which tracking never prunes.
const minPrune = 256

// MaxReclaimGrowth bounds how far the device memory in use may grow between
// two collections of unreachable unscoped tensors, as a multiple of the
// larger of the memory in use after the last one and 64 MiB: unscoped code
// holds at most (1 + MaxReclaimGrowth) times its live set, or its live set
// plus 192 MiB when that is larger.
const MaxReclaimGrowth = 3

// The growth allowed between reclaims adapts to what a reclaim costs: it
// rises while the collections take more than highGCShare of the wall time
// (cheap operations on large tensors, such as a plain add, would otherwise
// spend much of their time collecting) and falls back while they take
// less than lowGCShare, so that expensive operations keep the tightest bound.
const (
	highGCShare = 1.0 / 8
	lowGCShare  = 1.0 / 32
)

// tracked is an unscoped tensor's handle with a weak pointer to the tensor:
// the pointer reads nil as soon as a garbage collection finds the tensor
// unreachable, before its cleanup has run.
type tracked struct {
	t weak.Pointer[Tensor]
	h *handle
}

// reclaimer returns the memory of unreachable unscoped tensors to the pool
// when the bytes in use grow, so that code that never releases its results
// reuses the pool's blocks instead of growing the pool until Go's collector,
// which paces itself on the Go heap rather than on device memory, happens to
// run their cleanups.
type reclaimer struct {
	handles []tracked // unscoped handles, some perhaps released since
	pruneAt int       // the length at which track next drops released handles
	mark    int64     // the pool's bytes in use after the last reclaim
	floor   int64     // reclaimFloor, or another value in tests
	growth  int64     // allowed growth as a multiple of the live set, 1 to MaxReclaimGrowth; 0 reads as 1
	fixed   bool      // growth stays at 1, for tests that need frequent reclaims
	lastEnd time.Time // when the last reclaim ended
	count   int64     // reclaims run, for tests and benchmarks
}

// track registers t's handle for reclaiming. The caller holds d.mu.
func (d *Device) track(t *Tensor) {
	r := &d.rc
	if len(r.handles) >= max(r.pruneAt, minPrune) {
		// Drop the handles released since (by Release, a Scope or their
		// cleanup), so that the registry stays proportional to the
		// unreleased ones; doubling the threshold keeps this amortized O(1).
		kept := r.handles[:0]
		for _, e := range r.handles {
			if !e.h.released.Load() {
				kept = append(kept, e)
			}
		}
		clear(r.handles[len(kept):])
		r.handles = kept
		r.pruneAt = 2 * len(kept)
	}
	r.handles = append(r.handles, tracked{t: weak.Make(t), h: t.h})
}

// maybeReclaim reclaims unreachable tensors when the pool's bytes in use
// have grown since the last reclaim by the allowed multiple of what was in
// use then (and by at least the floor), as Go's collector paces itself on
// heap growth. Operations call it first, with
// d.mu held and before they read any node: every node they go on to use is
// then reached through a tensor the caller still holds, which the garbage
// collector sees as reachable.
func (d *Device) maybeReclaim() {
	r := &d.rc
	if len(r.handles) == 0 || d.closed {
		return
	}
	floor := r.floor
	if floor == 0 {
		floor = reclaimFloor
	}
	if d.pool.BytesInUse() < r.mark+max(r.growth, 1)*max(r.mark, floor) {
		return
	}
	d.reclaim()
}

// reclaim runs a garbage collection and releases the handles of the
// tracked tensors it found unreachable, returning their memory to the pool
// now rather than when their cleanups run (the cleanups, which wait for
// d.mu, then find the handles released and do nothing). A reachable tensor
// keeps its weak pointer, so it is never released here. The caller holds
// d.mu.
func (d *Device) reclaim() {
	r := &d.rc
	start := time.Now()
	runtime.GC()
	kept := r.handles[:0]
	for _, e := range r.handles {
		switch {
		case e.h.released.Load():
		case e.t.Value() == nil:
			d.releaseLocked(e.h)
		default:
			kept = append(kept, e)
		}
	}
	clear(r.handles[len(kept):])
	r.handles = kept
	r.pruneAt = 2 * len(kept)
	r.mark = d.pool.BytesInUse()
	r.count++
	end := time.Now()
	if !r.lastEnd.IsZero() && !r.fixed {
		r.adapt(start.Sub(r.lastEnd), end.Sub(start))
	}
	r.lastEnd = end
}

// adapt widens or narrows the growth allowed before the next reclaim from
// the share of the wall time the last one took (cost) against the time since
// the one before it ended (between).
func (r *reclaimer) adapt(between, cost time.Duration) {
	share := float64(cost) / float64(max(between+cost, 1))
	growth := max(r.growth, 1)
	switch {
	case share > highGCShare && growth < MaxReclaimGrowth:
		growth++
	case share < lowGCShare && growth > 1:
		growth--
	}
	r.growth = growth
}
