package gemm

import (
	"sync"
	"unsafe"
)

// cacheLine is the alignment of packed buffers: panels of B start on a cache
// line so that every vector load of B is a single-line load.
const cacheLine = 64

// bufPool recycles packing buffers between calls.
var bufPool sync.Pool

// getBuf returns a buffer whose data holds n floats starting at a
// cache-line boundary. The contents are unspecified. Release it with putBuf.
func getBuf(n int) (buf *[]float32, data []float32) {
	pad := cacheLine / 4
	if v, ok := bufPool.Get().(*[]float32); ok && cap(*v) >= n+pad {
		buf = v
	} else { // a pooled buffer that is too small is left to the collector
		s := make([]float32, n+pad)
		buf = &s
	}
	s := (*buf)[:cap(*buf)]
	off := 0
	if mis := uintptr(unsafe.Pointer(&s[0])) % cacheLine; mis != 0 {
		off = int(cacheLine-mis) / 4
	}
	return buf, s[off : off+n]
}

// putBuf returns a buffer obtained from getBuf to the pool.
func putBuf(buf *[]float32) { bufPool.Put(buf) }
