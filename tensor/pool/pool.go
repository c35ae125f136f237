package pool

import (
	"errors"
	"fmt"
	"sync"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// ErrTooLarge is wrapped by the error Alloc returns for a request larger than
// the device's largest single allocation.
var ErrTooLarge = errors.New("pool: request exceeds the device's largest allocation")

// Block is one allocation handed out by a Pool. Buf is at least Size() bytes
// long; Bytes is the size that was requested. A Block is owned by its caller
// until it is passed to Free, which clears Buf: a Block is never reused, so a
// second Free of it is always detected.
type Block struct {
	Buf   device.Buffer // the device buffer; nil after Free
	Bytes int64         // the requested size

	size int64 // the class size allocated
	pool *Pool
	live bool
}

// Size returns the block's capacity in bytes: its size class, at least Bytes.
func (b *Block) Size() int64 { return b.size }

// Pool is a caching allocator for one device. The zero value is not usable;
// call New.
type Pool struct {
	mu       sync.Mutex
	dev      device.Device
	name     string // the device's name, for errors
	maxAlloc int64  // 0: no limit known
	cache    cache
	st       counters
}

// counters are the statistics a Pool maintains as it goes; Stats derives
// the rest.
type counters struct {
	allocs, reuses, deviceAllocs, deviceFrees, oomRetries int64
	inUse, requested, peakInUse, peakReserved             int64
	live                                                  int
}

// New returns an empty pool over dev, with no cap on cached bytes. It reads
// dev.Info() once for the device's allocation limit (zero means none).
func New(dev device.Device) *Pool {
	if dev == nil {
		panic("pool: New with a nil device")
	}
	info := dev.Info()
	p := &Pool{dev: dev, name: info.Name, maxAlloc: info.Limits.MaxAllocBytes}
	p.cache.init(-1)
	return p
}

// Device returns the device the pool allocates from.
func (p *Pool) Device() device.Device { return p.dev }

// SetCacheLimit caps the bytes the pool keeps cached: when a Free would exceed
// the cap, the least recently freed blocks are evicted (and released to the
// device by the next Alloc or EmptyCache). A negative limit removes the cap;
// zero disables caching.
func (p *Pool) SetCacheLimit(bytes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cache.limit = bytes
	p.cache.enforceLimit()
}

// CacheLimit returns the cap on cached bytes; negative means none.
func (p *Pool) CacheLimit() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cache.limit
}

// Alloc returns a block of at least bytes bytes, reusing a cached block of the
// same size class when there is one. A request above the device's largest
// single allocation fails with an error wrapping ErrTooLarge without calling
// the device. When the device reports out of memory (an error wrapping
// device.ErrOutOfMemory), the pool releases its whole cache and retries once;
// if that fails too, the returned error wraps the device's. Alloc panics if
// bytes is negative.
func (p *Pool) Alloc(bytes int64) (*Block, error) {
	if bytes < 0 {
		panic(fmt.Sprintf("pool: Alloc of negative size %d", bytes))
	}
	if p.maxAlloc > 0 && bytes > p.maxAlloc {
		return nil, fmt.Errorf("%w: %d bytes (%s) requested, %s allows at most %d bytes (%s) in one allocation",
			ErrTooLarge, bytes, FormatBytes(bytes), p.name, p.maxAlloc, FormatBytes(p.maxAlloc))
	}
	size := ClassSize(bytes)
	if p.maxAlloc > 0 && size > p.maxAlloc {
		size = p.maxAlloc
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	p.releasePending()
	buf, ok := p.cache.take(size)
	if ok {
		p.st.reuses++
	} else {
		var err error
		if buf, err = p.deviceAlloc(size); err != nil {
			return nil, fmt.Errorf("pool: allocating %d bytes (class %d) on %s: %w", bytes, size, p.name, err)
		}
	}
	p.st.allocs++
	p.st.live++
	p.st.inUse += size
	p.st.requested += bytes
	p.st.peakInUse = max(p.st.peakInUse, p.st.inUse)
	p.st.peakReserved = max(p.st.peakReserved, p.reserved())
	return &Block{Buf: buf, Bytes: bytes, size: size, pool: p, live: true}, nil
}

// deviceAlloc asks the device for size bytes, emptying the cache and retrying
// once on out of memory. p.mu is held.
func (p *Pool) deviceAlloc(size int64) (device.Buffer, error) {
	buf, err := p.dev.Alloc(size)
	if errors.Is(err, device.ErrOutOfMemory) {
		p.st.oomRetries++
		p.cache.evictAll()
		p.releasePending()
		buf, err = p.dev.Alloc(size)
	}
	if err != nil {
		return nil, err
	}
	if buf == nil {
		return nil, errors.New("the device returned a nil buffer")
	}
	if buf.Bytes() < size {
		got := buf.Bytes()
		p.dev.Free(buf)
		return nil, fmt.Errorf("the device returned a %d-byte buffer for a %d-byte request", got, size)
	}
	p.st.deviceAllocs++
	return buf, nil
}

// Free returns b to the pool's cache; b.Buf is cleared and b must not be used
// again. Free of nil does nothing. Freeing a block twice, or a block of
// another pool, panics. Free never calls into the device.
func (p *Pool) Free(b *Block) {
	if b == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if b.pool != p {
		panic(fmt.Sprintf("pool: Free of a %d-byte block that belongs to another pool", b.Bytes))
	}
	if !b.live {
		panic(fmt.Sprintf("pool: double free of a %d-byte block (class %d)", b.Bytes, b.size))
	}
	b.live = false
	p.cache.put(b.Buf, b.size)
	b.Buf = nil
	p.st.live--
	p.st.inUse -= b.size
	p.st.requested -= b.Bytes
}

// EmptyCache releases every cached block to the device. Blocks in use are
// not affected.
func (p *Pool) EmptyCache() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cache.evictAll()
	p.releasePending()
}

// releasePending frees the evicted buffers on the device. p.mu is held.
func (p *Pool) releasePending() {
	for _, buf := range p.cache.drainPending() {
		p.dev.Free(buf)
		p.st.deviceFrees++
	}
}

// reserved returns the bytes held from the device. p.mu is held.
func (p *Pool) reserved() int64 {
	return p.st.inUse + p.cache.cachedBytes + p.cache.pendingBytes
}
