package gemm

import (
	"slices"
	"sync"
	"unsafe"
)

// Packing buffers. Small ones come from the Go heap through a sync.Pool.
// Large ones come from allocLarge, which on Linux maps memory that the
// kernel may back with 2 MiB pages: the compute phase walks megabytes of
// packed panels, and with 4 KiB pages TLB misses cost about a sixth of the
// throughput of a 1024³ product. A few large buffers are kept for reuse so
// that repeated products neither map nor fault in memory again.

// cacheLine is the alignment of packed data: panels of B start on a cache
// line so that every vector load of B is a single-line load.
const cacheLine = 64

// largeBufBytes is the size from which buffers are large.
const largeBufBytes = 1 << 20

// maxCachedLarge is how many idle large buffers are kept.
const maxCachedLarge = 4

// packBuf is a packing buffer: data is n floats aligned to a cache line.
type packBuf struct {
	data  []float32
	mem   []byte // the whole allocation
	large bool
	free  func() // releases a large allocation
}

var (
	smallPool sync.Pool // *packBuf

	largeMu   sync.Mutex
	largeIdle []*packBuf
)

// getBuf returns a buffer of n floats with unspecified contents; release it
// with putBuf.
func getBuf(n int) *packBuf {
	need := n*4 + cacheLine
	if need < largeBufBytes {
		pb, _ := smallPool.Get().(*packBuf)
		if pb == nil || len(pb.mem) < need {
			pb = &packBuf{mem: make([]byte, need)}
		}
		pb.setData(n)
		return pb
	}
	largeMu.Lock()
	best := -1
	for i, b := range largeIdle {
		if len(b.mem) >= need && (best < 0 || len(b.mem) < len(largeIdle[best].mem)) {
			best = i
		}
	}
	var pb *packBuf
	if best >= 0 {
		pb = largeIdle[best]
		largeIdle = slices.Delete(largeIdle, best, best+1)
	}
	largeMu.Unlock()
	if pb == nil {
		mem, free := allocLarge(need)
		pb = &packBuf{mem: mem, large: true, free: free}
	}
	pb.setData(n)
	return pb
}

// setData points data at n floats from the first cache line of mem.
func (pb *packBuf) setData(n int) {
	off := 0
	if mis := int(uintptr(unsafe.Pointer(&pb.mem[0])) % cacheLine); mis != 0 {
		off = cacheLine - mis
	}
	pb.data = unsafe.Slice((*float32)(unsafe.Pointer(&pb.mem[off])), n)
}

// putBuf returns a buffer to its pool. The smallest idle large buffer is
// released when more than maxCachedLarge are idle.
func putBuf(pb *packBuf) {
	pb.data = nil
	if !pb.large {
		smallPool.Put(pb)
		return
	}
	largeMu.Lock()
	largeIdle = append(largeIdle, pb)
	var drop *packBuf
	if len(largeIdle) > maxCachedLarge {
		i := 0
		for j, b := range largeIdle {
			if len(b.mem) < len(largeIdle[i].mem) {
				i = j
			}
		}
		drop = largeIdle[i]
		largeIdle = slices.Delete(largeIdle, i, i+1)
	}
	largeMu.Unlock()
	if drop != nil {
		drop.free()
	}
}
