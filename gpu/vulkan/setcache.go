//go:build cgo

package vulkan

/*
#include "native.h"
*/
import "C"

import (
	"hash/maphash"
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
	hash       uint64
	set        C.VkDescriptorSet
	lastUse    uint64    // sequence number of the newest batch that bound it
	bufs       []*Buffer // the distinct buffers it binds
	prev, next *setEntry // the LRU list, most recently used first
}

// setCache keeps descriptor sets by their bindings across dispatches and
// batches. A set is rewritten only when no recorded or submitted work uses
// it (lastUse <= Device.done); entries binding a buffer are dropped when the
// buffer is released, which happens only after the work using it completed.
// Each buffer counts the entries that bind it (Buffer.nsets), so that
// releasing a buffer no set binds costs nothing; the rare release of one
// that some set binds scans the entries.
type setCache struct {
	pool      vk.DescriptorPool
	allocated int // sets allocated from pool
	seed      maphash.Seed
	entries   map[uint64]*setEntry // by the key's hash (a map of 360-byte keys would allocate each)
	lru       setEntry             // sentinel: lru.next is the most recent entry
	spare     []*setEntry          // dropped entries, with their sets, to reuse

	// hitRate is the exponentially weighted share of lookups that hit
	// (weight 1/hitWindow). While it is below admitRate, only one miss in
	// admitEvery writes a cached set; the others take a fresh set.
	hitRate  float64
	declined int // misses not admitted since the last admitted one
}

// Admission: writing a cached set on a miss costs more than a fresh set (the
// least recently used set and its bookkeeping are cold) and a hit saves
// about as much, so below about half hits caching every miss loses
// (docs/measurements.md). Bindings that never repeat (or repeat
// after more than setCacheSize other sets) then cost a lookup more than
// fresh sets, and a sampled miss keeps the cache learning.
const (
	hitWindow  = 64
	admitRate  = 0.5
	admitEvery = 16
)

// newSetCache returns an empty cache allocating from pool.
func newSetCache(pool vk.DescriptorPool) *setCache {
	c := &setCache{pool: pool, seed: maphash.MakeSeed(), entries: make(map[uint64]*setEntry), hitRate: 1}
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

// drop removes e from the cache; its set and struct may then be reused.
func (c *setCache) drop(e *setEntry) {
	delete(c.entries, e.hash)
	c.unlink(e)
	for _, b := range e.bufs {
		b.nsets--
	}
	clear(e.bufs)
	e.bufs = e.bufs[:0]
}

// invalidate drops every entry that binds b (being released) and keeps it
// as a spare.
func (c *setCache) invalidate(b *Buffer) {
	for e := c.lru.next; e != &c.lru && b.nsets > 0; {
		next := e.next
		for _, x := range e.bufs {
			if x == b {
				c.drop(e)
				c.spare = append(c.spare, e)
				break
			}
		}
		e = next
	}
}

// cachedSet returns the cached set for key, on an admitted miss taking an
// idle set and asking for it to be written (d.args.write; binding 0 of
// d.args must then be the arena at offset 0 with range paramsRange); bufs
// are the distinct buffers the key names. ok is false when the miss is not
// admitted or every set is in use by pending work: the caller then takes a
// fresh set.
func (d *Device) cachedSet(key *setKey, bufs []*Buffer, seq uint64) (set C.VkDescriptorSet, ok bool, err error) {
	c := d.sets
	h := maphash.Bytes(c.seed, unsafe.Slice((*byte)(unsafe.Pointer(key)), unsafe.Sizeof(*key))) // no padding
	e := c.entries[h]
	hit := e != nil && e.key == *key
	c.hitRate += (b2f(hit) - c.hitRate) / hitWindow
	switch {
	case hit:
		d.stats.DescriptorHits++
		c.unlink(e)
	case e != nil: // another key with the same hash: not cached
		return 0, false, nil
	default:
		d.stats.DescriptorMisses++
		if c.hitRate < admitRate && c.declined < admitEvery-1 {
			c.declined++
			return 0, false, nil
		}
		c.declined = 0
		if e, err = d.takeEntry(); e == nil {
			return 0, false, err
		}
		e.key, e.hash = *key, h
		e.bufs = append(e.bufs, bufs...)
		for _, b := range bufs {
			b.nsets++
		}
		c.entries[h] = e
		d.args.write = 1
	}
	c.pushFront(e)
	e.lastUse = seq
	return e.set, true, nil
}

// takeEntry returns an entry, out of the cache, whose set no pending work
// uses: a spare one, a new one while the pool has room, or the least
// recently used one; nil when there is none.
func (d *Device) takeEntry() (*setEntry, error) {
	c := d.sets
	for i := len(c.spare) - 1; i >= 0; i-- {
		if e := c.spare[i]; e.lastUse <= d.done {
			last := len(c.spare) - 1
			c.spare[i], c.spare[last] = c.spare[last], nil
			c.spare = c.spare[:last]
			return e, nil
		}
	}
	if c.allocated < setCacheSize {
		e := &setEntry{}
		pool := C.VkDescriptorPool(uintptr(unsafe.Pointer(c.pool)))
		if err := d.check("vkAllocateDescriptorSets", C.sf_alloc_set(d.c, pool, d.cdsl(), &e.set)); err != nil {
			return nil, err
		}
		c.allocated++
		return e, nil
	}
	if e := c.lru.prev; e != &c.lru && e.lastUse <= d.done {
		c.drop(e)
		return e, nil
	}
	return nil, nil
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
