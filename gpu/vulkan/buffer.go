//go:build cgo

package vulkan

/*
#include "native.h"
*/
import "C"

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// allocGranule is the granule of buffer sizes: sizes are rounded up to it so
// that every buffer is a whole number of the u32 words shaders address.
const allocGranule = 16

// Buffer is a Vulkan device buffer.
type Buffer struct {
	raw rawBuffer
	dev *Device
	id  uint64

	// lastUse is the sequence number of the newest batch that uses the
	// buffer; the buffer is idle once Device.done reaches it.
	lastUse uint64
	// readEpoch and writeEpoch are the hazard epochs of the last read and
	// write recorded in the current batch.
	readEpoch, writeEpoch uint64
	freed                 bool
	// nsets counts the cached descriptor sets that bind the buffer, which
	// are dropped when it is released.
	nsets int
}

// Bytes returns the buffer's size: the requested size rounded up to 16.
func (b *Buffer) Bytes() int64 { return b.raw.size }

// String names the buffer for messages.
func (b *Buffer) String() string {
	return fmt.Sprintf("vulkan buffer #%d (%d bytes)", b.id, b.raw.size)
}

// Alloc returns a buffer of at least bytes bytes. Its content is undefined.
func (d *Device) Alloc(bytes int64) (device.Buffer, error) {
	if bytes < 0 {
		panic(fmt.Sprintf("vulkan: Alloc of %d bytes", bytes))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return nil, err
	}
	return d.allocLocked(bytes)
}

// allocLocked allocates a buffer; the caller holds d.mu.
func (d *Device) allocLocked(bytes int64) (*Buffer, error) {
	size := max((bytes+allocGranule-1)&^(allocGranule-1), allocGranule)
	if err := d.checkAlloc(size); err != nil {
		return nil, err
	}
	r, err := d.createBuffer(size, false)
	if err != nil {
		return nil, err
	}
	d.nextID++
	b := &Buffer{raw: *r, dev: d, id: d.nextID}
	d.live[b] = struct{}{}
	return b, nil
}

// own returns b as this device's buffer or panics: a buffer of another
// device or backend is a programmer error.
func (d *Device) own(op string, b device.Buffer) *Buffer {
	vb, ok := b.(*Buffer)
	switch {
	case !ok:
		panic(fmt.Sprintf("vulkan: %s: buffer %T is not a Vulkan buffer", op, b))
	case vb.dev != d:
		panic(fmt.Sprintf("vulkan: %s: %v belongs to another device", op, vb))
	case vb.freed:
		panic(fmt.Sprintf("vulkan: %s: %v was freed", op, vb))
	}
	return vb
}

// Free releases a buffer; work already recorded that uses it completes
// first. Free may be called from any goroutine; freeing twice is a no-op.
func (d *Device) Free(b device.Buffer) {
	vb, ok := b.(*Buffer)
	if !ok || vb == nil {
		panic(fmt.Sprintf("vulkan: Free of %T, not a Vulkan buffer", b))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if vb.dev != d {
		panic(fmt.Sprintf("vulkan: Free: %v belongs to another device", vb))
	}
	if vb.freed || d.closed {
		return
	}
	vb.freed = true
	if vb.lastUse > d.done && d.lost == nil {
		// Still used by recorded or submitted work: the batch frees it.
		for _, bt := range d.batches {
			if bt.seq == vb.lastUse && (bt.recording || bt.submitted) {
				bt.frees = append(bt.frees, vb)
				return
			}
		}
	}
	d.release(vb)
}

// release destroys a buffer's Vulkan objects.
func (d *Device) release(b *Buffer) {
	if _, ok := d.live[b]; !ok {
		return
	}
	delete(d.live, b)
	if d.sets != nil {
		d.sets.invalidate(b)
	}
	size := b.raw.size
	d.destroyRaw(&b.raw)
	b.raw.size = size // kept for Bytes and messages
}

// checkRange panics when [off, off+n) is not inside b.
func checkRange(op string, b *Buffer, off int64, n int) {
	if off < 0 || int64(n) > b.raw.size || off > b.raw.size-int64(n) {
		panic(fmt.Sprintf("vulkan: %s of %d bytes at offset %d is outside %v", op, n, off, b))
	}
}

// idle reports whether no recorded or submitted work uses b.
func (d *Device) idle(b *Buffer) bool { return b.lastUse <= d.done }

// Write copies src into b at byte offset off. Writes to an idle buffer in
// host-visible memory are plain copies; otherwise the data goes through the
// recording batch's upload arena (or a staging buffer) and a copy command,
// ordered with the kernels recorded before it.
func (d *Device) Write(b device.Buffer, off int64, src []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	vb := d.own("Write", b)
	if err := d.usable(); err != nil {
		return err
	}
	checkRange("Write", vb, off, len(src))
	return d.writeLocked(vb, off, src)
}

// writeLocked is Write for a checked range; the caller holds d.mu.
func (d *Device) writeLocked(vb *Buffer, off int64, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	if vb.raw.mapped != nil && d.idle(vb) {
		copy(vb.raw.bytes()[off:], src)
		return nil
	}
	return d.stageWrite(vb, off, src)
}

// stageWrite records a copy of src into b at off (vkCmdCopyBuffer has no
// alignment requirement).
func (d *Device) stageWrite(b *Buffer, off int64, src []byte) error {
	bt, err := d.current()
	if err != nil {
		return err
	}
	n := int64(len(src))
	var stage *rawBuffer
	var soff int64
	if n < bigUpload {
		var ok bool
		if soff, ok = bt.upload(n, 16); !ok {
			if err := d.flush(); err != nil {
				return err
			}
			return d.stageWrite(b, off, src)
		}
		stage = bt.arena
	} else {
		if stage, err = d.createBuffer(n, true); err != nil {
			return err
		}
		bt.temps = append(bt.temps, stage)
	}
	copy(stage.bytes()[soff:soff+n], src)
	d.scratchWrites[0] = b
	barrier := d.hazard(nil, d.scratchWrites[:1])
	C.sf_copy(d.c, bt.ccb(), cflag(barrier), stage.handle(), C.VkDeviceSize(soff), b.raw.handle(), C.VkDeviceSize(off), C.VkDeviceSize(n))
	b.lastUse = bt.seq
	return nil
}

// Read waits for pending work and copies bytes of b from byte offset off
// into dst. It returns any error deferred by earlier work.
func (d *Device) Read(b device.Buffer, off int64, dst []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	vb := d.own("Read", b)
	if err := d.usable(); err != nil {
		return err
	}
	checkRange("Read", vb, off, len(dst))
	if err := d.drain(); err != nil {
		return err
	}
	if err := d.readLocked(vb, off, dst); err != nil {
		return err
	}
	return d.takeErrors()
}

// readLocked copies from an idle buffer: directly when it is mapped, else
// through a staging buffer.
func (d *Device) readLocked(b *Buffer, off int64, dst []byte) error {
	if len(dst) == 0 {
		return nil
	}
	if b.raw.mapped != nil {
		copy(dst, b.raw.bytes()[off:])
		return nil
	}
	n := int64(len(dst))
	stage, err := d.createBuffer(n, true)
	if err != nil {
		return err
	}
	defer d.destroyRaw(stage)
	bt, err := d.current()
	if err != nil {
		return err
	}
	d.scratchReads[0] = b
	barrier := d.hazard(d.scratchReads[:1], nil)
	C.sf_copy(d.c, bt.ccb(), cflag(barrier), b.raw.handle(), C.VkDeviceSize(off), stage.handle(), 0, C.VkDeviceSize(n))
	if err := d.drain(); err != nil {
		return err
	}
	copy(dst, stage.bytes())
	return nil
}
