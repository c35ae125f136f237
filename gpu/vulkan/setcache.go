//go:build cgo

package vulkan

/*
#include "native.h"
*/
import "C"

import (
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"github.com/shaderflow/shaderflow/shaders"
)

// setCacheSize is how many descriptor sets the cache holds. It exceeds the
// dispatches that can be pending at once (numBatches*maxBatchDispatches), so
// that whenever the cache is full its least recently used set is idle and
// can be rewritten.
const setCacheSize = 1024

// bindKey is one data binding of a cached set.
type bindKey struct {
	id        uint64 // Buffer.id (never reused); 0 for a binding of the dummy buffer
	off, size int64
}

// setKey identifies a cached set by its data bindings. Binding 0, the params
// arena at a dynamic offset, is the same in every cached set, and so is the
// single pipeline layout.
type setKey [shaders.DataBindings]bindKey

// setEntry is a cached descriptor set.
type setEntry struct {
	key        setKey
	set        C.VkDescriptorSet
	lastUse    uint64    // sequence number of the newest batch that bound it
	bufs       []*Buffer // the distinct buffers it binds
	prev, next *setEntry // the LRU list, most recently used first
}

// spareSet is the set of a dropped entry, kept to be rewritten.
type spareSet struct {
	set     C.VkDescriptorSet
	lastUse uint64
}

// setCache keeps descriptor sets by their bindings across dispatches and
// batches. A set is rewritten only when no recorded or submitted work uses
// it (lastUse <= Device.done); entries binding a buffer are dropped when the
// buffer is released, which happens only after the work using it completed.
type setCache struct {
	pool      vk.DescriptorPool
	allocated int // sets allocated from pool
	entries   map[setKey]*setEntry
	lru       setEntry // sentinel: lru.next is the most recent entry
	spare     []spareSet
}

// newSetCache returns an empty cache allocating from pool.
func newSetCache(pool vk.DescriptorPool) *setCache {
	c := &setCache{pool: pool, entries: make(map[setKey]*setEntry)}
	c.lru.next, c.lru.prev = &c.lru, &c.lru
	return c
}

// Len returns the number of cached sets.
func (c *setCache) Len() int { return len(c.entries) }

// unlink removes e from the LRU list.
func (c *setCache) unlink(e *setEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
}

// pushFront makes e the most recently used entry.
func (c *setCache) pushFront(e *setEntry) {
	e.prev, e.next = &c.lru, c.lru.next
	c.lru.next.prev = e
	c.lru.next = e
}

// drop removes e from the cache and from its buffers' lists and returns its
// set.
func (c *setCache) drop(e *setEntry) spareSet {
	delete(c.entries, e.key)
	c.unlink(e)
	for _, b := range e.bufs {
		for i, x := range b.sets {
			if x == e {
				last := len(b.sets) - 1
				b.sets[i], b.sets[last] = b.sets[last], nil
				b.sets = b.sets[:last]
				break
			}
		}
	}
	e.bufs = nil
	return spareSet{e.set, e.lastUse}
}

// invalidate drops every entry that binds b (being released).
func (c *setCache) invalidate(b *Buffer) {
	for len(b.sets) > 0 {
		c.spare = append(c.spare, c.drop(b.sets[len(b.sets)-1]))
	}
}

// cachedSet returns the cached set for key, creating it (written from
// d.args, whose binding 0 must be the arena at offset 0 with range
// paramsRange) on a miss; bufs are the distinct buffers the key names. ok is
// false when every set is in use by pending work: the caller then allocates
// a fresh one.
func (d *Device) cachedSet(key *setKey, bufs []*Buffer, seq uint64) (set C.VkDescriptorSet, ok bool, err error) {
	c := d.sets
	e := c.entries[*key]
	if e != nil {
		d.stats.DescriptorHits++
		c.unlink(e)
	} else {
		if set, ok, err = d.takeSet(); !ok {
			return 0, false, err
		}
		C.sf_write_set(d.c, set, d.args)
		e = &setEntry{key: *key, set: set, bufs: append([]*Buffer(nil), bufs...)}
		c.entries[*key] = e
		for _, b := range bufs {
			b.sets = append(b.sets, e)
		}
		d.stats.DescriptorMisses++
	}
	c.pushFront(e)
	e.lastUse = seq
	return e.set, true, nil
}

// takeSet returns a set no pending work uses: a spare one, a new one while
// the pool has room, or the least recently used entry's.
func (d *Device) takeSet() (C.VkDescriptorSet, bool, error) {
	c := d.sets
	for i := len(c.spare) - 1; i >= 0; i-- {
		if s := c.spare[i]; s.lastUse <= d.done {
			last := len(c.spare) - 1
			c.spare[i] = c.spare[last]
			c.spare = c.spare[:last]
			return s.set, true, nil
		}
	}
	if c.allocated < setCacheSize {
		var set C.VkDescriptorSet
		pool := C.VkDescriptorPool(uintptr(unsafe.Pointer(c.pool)))
		if err := d.check("vkAllocateDescriptorSets", C.sf_alloc_set(d.c, pool, d.cdsl(), &set)); err != nil {
			return 0, false, err
		}
		c.allocated++
		return set, true, nil
	}
	if e := c.lru.prev; e != &c.lru && e.lastUse <= d.done {
		return c.drop(e).set, true, nil
	}
	return 0, false, nil
}
