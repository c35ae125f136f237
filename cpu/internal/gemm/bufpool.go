package gemm

import (
	"slices"
	"sync"
	"unsafe"
)

// Packing buffers are kept between products in a small cache of idle
// buffers (a sync.Pool would drop them at every garbage collection, and a
// fresh buffer costs a page-faulting clear). Large ones come from
// allocLarge, which on Linux maps memory that the kernel may back with 2 MiB
// pages: the compute phase walks megabytes of packed panels, and with 4 KiB
// pages TLB misses cost about a sixth of the throughput of a 1024³ product.

// cacheLine is the alignment of packed data: panels of B start on a cache
// line so that every vector load of B is a single-line load.
const cacheLine = 64

// largeBufBytes is the size from which buffers come from allocLarge.
const largeBufBytes = 1 << 20

// maxIdleBufs is how many idle buffers the cache keeps; beyond that the
// smallest is dropped.
const maxIdleBufs = 8

// packBuf is a packing buffer: data is n floats aligned to a cache line.
type packBuf struct {
	data []float32
	mem  []byte // the whole allocation
	free func() // releases mem (nil for the Go heap)
}

var (
	idleMu sync.Mutex
	idle   []*packBuf
)

// getBuf returns a buffer of n floats with unspecified contents; release it
// with putBuf.
func getBuf(n int) *packBuf {
	need := n*4 + cacheLine
	idleMu.Lock()
	best := -1
	for i, b := range idle {
		if len(b.mem) >= need && (best < 0 || len(b.mem) < len(idle[best].mem)) {
			best = i
		}
	}
	var pb *packBuf
	if best >= 0 {
		pb = idle[best]
		idle = slices.Delete(idle, best, best+1)
	}
	idleMu.Unlock()
	if pb == nil {
		pb = &packBuf{}
		if need >= largeBufBytes {
			pb.mem, pb.free = allocLarge(need)
		} else {
			pb.mem = make([]byte, need)
		}
	}
	pb.align(n)
	return pb
}

// align sets pb.data to n floats of pb.mem starting on a cache line.
func (pb *packBuf) align(n int) {
	off := 0
	if mis := int(uintptrOf(pb.mem) % cacheLine); mis != 0 {
		off = cacheLine - mis
	}
	pb.data = unsafe.Slice((*float32)(unsafe.Pointer(&pb.mem[off])), n)
}

// ownBuf returns a buffer of n floats for a product that no other goroutine
// reaches (a serial one): *own, grown when too small, for a small buffer,
// so that many small products take no lock; a large one (true: release it
// with putBuf) from the idle cache, which maps them where huge pages may
// back them.
func ownBuf(own **packBuf, n int) (*packBuf, bool) {
	need := n*4 + cacheLine
	if need >= largeBufBytes {
		return getBuf(n), true
	}
	if *own == nil || len((*own).mem) < need {
		*own = &packBuf{mem: make([]byte, need)}
	}
	(*own).align(n)
	return *own, false
}

// putBuf returns a buffer obtained from getBuf to the idle cache.
func putBuf(pb *packBuf) {
	pb.data = nil
	idleMu.Lock()
	idle = append(idle, pb)
	var drop *packBuf
	if len(idle) > maxIdleBufs {
		i := 0
		for j, b := range idle {
			if len(b.mem) < len(idle[i].mem) {
				i = j
			}
		}
		drop = idle[i]
		idle = slices.Delete(idle, i, i+1)
	}
	idleMu.Unlock()
	if drop != nil && drop.free != nil {
		drop.free()
	}
}
