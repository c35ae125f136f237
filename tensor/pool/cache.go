package pool

import "github.com/shaderflow/shaderflow/tensor/device"

// entry is a cached (free) device buffer of one size class.
type entry struct {
	buf        device.Buffer
	size       int64
	prev, next *entry // the recency list, oldest first
}

// cache holds the free buffers: a stack per size class for reuse (most
// recently freed on top) and one recency list across classes for eviction
// (least recently freed first). Within a class both orders agree, so the
// oldest entry of the recency list is always at the bottom of its class's
// stack. Evicted buffers wait in pending until the pool releases them to the
// device. The map keeps the (possibly empty) stack of every class seen: at
// most eight per power of two, a few hundred in all. The cache does not lock;
// the Pool does.
type cache struct {
	classes      map[int64][]*entry
	oldest       *entry
	newest       *entry
	limit        int64 // cap on cachedBytes; negative: none
	cachedBytes  int64
	count        int // cached entries
	pending      []*entry
	pendingBytes int64
	spare        []*entry // recycled entries, so that a Free allocates nothing
}

func (c *cache) init(limit int64) {
	c.classes = make(map[int64][]*entry)
	c.limit = limit
}

// take removes and returns the most recently freed buffer of class size.
func (c *cache) take(size int64) (device.Buffer, bool) {
	stack := c.classes[size]
	if len(stack) == 0 {
		return nil, false
	}
	e := stack[len(stack)-1]
	stack[len(stack)-1] = nil
	c.classes[size] = stack[:len(stack)-1]
	c.unlink(e)
	c.cachedBytes -= size
	c.count--
	buf := e.buf
	c.recycle(e)
	return buf, true
}

// put caches buf as a free buffer of class size, evicting the oldest
// entries if that exceeds the limit.
func (c *cache) put(buf device.Buffer, size int64) {
	var e *entry
	if n := len(c.spare); n > 0 {
		e = c.spare[n-1]
		c.spare = c.spare[:n-1]
	} else {
		e = new(entry)
	}
	*e = entry{buf: buf, size: size, prev: c.newest}
	if c.newest != nil {
		c.newest.next = e
	} else {
		c.oldest = e
	}
	c.newest = e
	c.classes[size] = append(c.classes[size], e)
	c.cachedBytes += size
	c.count++
	c.enforceLimit()
}

// enforceLimit evicts the oldest entries until cachedBytes is within limit.
func (c *cache) enforceLimit() {
	for c.limit >= 0 && c.cachedBytes > c.limit {
		c.evictOldest()
	}
}

// evictAll moves every cached entry to pending.
func (c *cache) evictAll() {
	for c.oldest != nil {
		c.evictOldest()
	}
}

// evictOldest moves the least recently freed entry to pending.
func (c *cache) evictOldest() {
	e := c.oldest
	stack := c.classes[e.size]
	if stack[0] != e {
		panic("pool: internal error: cache recency list out of order")
	}
	stack[0] = nil
	c.classes[e.size] = stack[1:]
	c.unlink(e)
	c.cachedBytes -= e.size
	c.count--
	c.pending = append(c.pending, e)
	c.pendingBytes += e.size
}

// drainPending returns the evicted buffers and forgets them.
func (c *cache) drainPending() []device.Buffer {
	if len(c.pending) == 0 {
		return nil
	}
	bufs := make([]device.Buffer, len(c.pending))
	for i, e := range c.pending {
		bufs[i] = e.buf
		c.recycle(e)
		c.pending[i] = nil
	}
	c.pending = c.pending[:0]
	c.pendingBytes = 0
	return bufs
}

// maxSpare bounds the recycled entries kept after a large eviction.
const maxSpare = 1024

// recycle keeps e for a later put.
func (c *cache) recycle(e *entry) {
	if len(c.spare) < maxSpare {
		*e = entry{}
		c.spare = append(c.spare, e)
	}
}

// unlink removes e from the recency list.
func (c *cache) unlink(e *entry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		c.oldest = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		c.newest = e.prev
	}
	e.prev, e.next = nil, nil
}
