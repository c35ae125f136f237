//go:build cgo

package webgpu

import (
	"encoding/binary"
	"fmt"

	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/shaderflow/shaderflow/gpu"
)

// maxBindGroups bounds the bind-group cache: the pool hands a step's
// intermediates different buffers from step to step, so the combinations of
// live buffers a training loop binds keep changing and an unbounded cache
// grows by thousands of groups a minute.
const maxBindGroups = 1024

// bindGroupCache keeps one bind group per distinct list of bound ranges;
// freeing a buffer drops the groups that name it, and a full cache drops
// all of them (their release waits until the queue is idle).
type bindGroupCache struct {
	groups map[string]*wgpu.BindGroup
	byBuf  map[*buffer][]string
	key    []byte // scratch
}

func (c *bindGroupCache) init() {
	c.groups = map[string]*wgpu.BindGroup{}
	c.byBuf = map[*buffer][]string{}
}

// get returns the bind group binding the params window at 0 and bs at
// 1..len(bs).
func (c *bindGroupCache) get(d *Device, bs []gpu.Binding, bufs []*buffer) (*wgpu.BindGroup, error) {
	k := c.key[:0]
	for i, b := range bs {
		k = binary.AppendUvarint(k, bufs[i].id)
		k = binary.AppendUvarint(k, uint64(b.Offset))
		k = binary.AppendUvarint(k, uint64(b.Size))
	}
	c.key = k
	if g, ok := c.groups[string(k)]; ok {
		return g, nil
	}
	key := string(k)
	if len(c.groups) >= maxBindGroups {
		c.dropAll(d)
	}
	lay, err := d.pipes.layout(d, len(bs))
	if err != nil {
		return nil, err
	}
	entries := make([]wgpu.BindGroupEntry, len(bs)+1)
	entries[0] = wgpu.BindGroupEntry{Binding: 0, Buffer: d.batch.paramsBuf, Size: paramsWindowBytes}
	for i, b := range bs {
		if b.Size <= 0 || b.Offset < 0 || b.Offset+b.Size > bufs[i].size {
			return nil, fmt.Errorf("webgpu: binding %d: range [%d,%d) of a %d-byte buffer", i+1, b.Offset, b.Offset+b.Size, bufs[i].size)
		}
		entries[i+1] = wgpu.BindGroupEntry{Binding: uint32(i + 1), Buffer: bufs[i].b, Offset: uint64(b.Offset), Size: uint64(b.Size)}
	}
	g, err := d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Layout: lay.bgl, Entries: entries})
	if err != nil {
		return nil, fmt.Errorf("webgpu: bind group: %v", err)
	}
	c.groups[key] = g
	for _, b := range bufs {
		c.byBuf[b] = append(c.byBuf[b], key)
	}
	return g, nil
}

// forget drops the bind groups that use b.
func (c *bindGroupCache) forget(b *buffer) {
	d := b.d
	for _, k := range c.byBuf[b] {
		if g, ok := c.groups[k]; ok {
			delete(c.groups, k)
			d.graveyard = append(d.graveyard, g.Release)
		}
	}
	delete(c.byBuf, b)
}

// dropAll forgets every group, releasing each once the queue is idle (work
// recorded in the current batch may still use them).
func (c *bindGroupCache) dropAll(d *Device) {
	for _, g := range c.groups {
		d.graveyard = append(d.graveyard, g.Release)
	}
	c.init()
}

func (c *bindGroupCache) releaseAll() {
	for _, g := range c.groups {
		g.Release()
	}
	c.init()
}
