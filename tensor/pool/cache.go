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
// device. The cache does not lock; the Pool does.
type cache struct {
	classes      map[int64][]*entry
	oldest       *entry
	newest       *entry
	limit        int64 // cap on cachedBytes; negative: none
	cachedBytes  int64
	count        int // cached entries
	pending      []*entry
	pendingBytes int64
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
	c.setClass(size, stack[:len(stack)-1])
	c.unlink(e)
	c.cachedBytes -= size
	c.count--
	return e.buf, true
}

// put caches buf as a free buffer of class size, evicting the oldest
// entries if that exceeds the limit.
func (c *cache) put(buf device.Buffer, size int64) {
	e := &entry{buf: buf, size: size, prev: c.newest}
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
	c.setClass(e.size, stack[1:])
	c.unlink(e)
	c.cachedBytes -= e.size
	c.count--
	c.pending = append(c.pending, e)
	c.pendingBytes += e.size
}

// drainPending returns the evicted entries and forgets them.
func (c *cache) drainPending() []*entry {
	p := c.pending
	c.pending = nil
	c.pendingBytes = 0
	return p
}

// setClass stores a class's stack, dropping the map entry when it is empty.
func (c *cache) setClass(size int64, stack []*entry) {
	if len(stack) == 0 {
		delete(c.classes, size)
		return
	}
	c.classes[size] = stack
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
