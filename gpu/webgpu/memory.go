//go:build cgo

package webgpu

import (
	"fmt"

	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// buffer is a device allocation. Its size is a multiple of 4 bytes (WebGPU
// copies and the shaders' word access need it).
type buffer struct {
	d     *Device
	b     *wgpu.Buffer
	size  int64
	id    uint64
	freed bool
}

// Bytes returns the allocation's size: the requested size rounded up to a
// multiple of 4.
func (b *buffer) Bytes() int64 { return b.size }

const storageUsage = wgpu.BufferUsage_Storage | wgpu.BufferUsage_CopySrc | wgpu.BufferUsage_CopyDst

// createBuffer creates a wgpu buffer, turning validation and out-of-memory
// errors into errors.
func (d *Device) createBuffer(label string, size int64, usage wgpu.BufferUsage) (*wgpu.Buffer, error) {
	var wb *wgpu.Buffer
	var err error
	oom := withOOMScope(d.dev, d.errs, func() {
		wb, err = d.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: label, Size: uint64(size), Usage: usage})
	})
	if oom != nil {
		if wb != nil {
			wb.Release()
		}
		return nil, d.noteError(oom)
	}
	if err != nil {
		return nil, fmt.Errorf("webgpu: allocating %d bytes: %v", size, err)
	}
	return wb, nil
}

// Alloc returns a buffer of at least bytes bytes.
func (d *Device) Alloc(bytes int64) (device.Buffer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return nil, err
	}
	if bytes < 0 {
		return nil, fmt.Errorf("webgpu: Alloc of %d bytes", bytes)
	}
	size := max(4, (bytes+3)&^3)
	if size > d.info.Limits.MaxAllocBytes {
		return nil, fmt.Errorf("webgpu: Alloc of %d bytes exceeds the adapter's largest buffer (%d bytes): %w",
			bytes, d.info.Limits.MaxAllocBytes, device.ErrOutOfMemory)
	}
	wb, err := d.createBuffer("tensor", size, storageUsage)
	if err != nil {
		return nil, err
	}
	d.nextID++
	b := &buffer{d: d, b: wb, size: size, id: d.nextID}
	d.live[b] = struct{}{}
	return b, nil
}

// Free releases a buffer. Work already recorded that uses it still runs: the
// buffer is destroyed once the queue is idle.
func (d *Device) Free(db device.Buffer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	b, ok := db.(*buffer)
	if !ok || b.d != d {
		panic(fmt.Sprintf("webgpu: Free of a buffer (%T) that is not this device's", db))
	}
	if d.closed || b.freed {
		return
	}
	b.freed = true
	delete(d.live, b)
	d.groups.forget(b)
	wb := b.b
	d.graveyard = append(d.graveyard, func() {
		wb.Destroy()
		wb.Release()
	})
	b.b = nil
	d.buried += b.size
	if d.buried > maxPendingFreeBytes || len(d.graveyard) > maxPendingFrees {
		// Much memory awaits the queue: wait for it and release it now.
		if err := d.flush(); err == nil && waitIdle(d.dev) == nil {
			d.bury()
		}
	}
}

// Freed memory is released when the queue is idle: at every Read and Sync,
// and when this much is pending.
const (
	maxPendingFreeBytes = 256 << 20
	maxPendingFrees     = 4096
)

// own checks that db is a live buffer of this device.
func (d *Device) own(db device.Buffer) (*buffer, error) {
	b, ok := db.(*buffer)
	switch {
	case !ok || b == nil:
		return nil, fmt.Errorf("webgpu: buffer %T is not a webgpu buffer", db)
	case b.d != d:
		return nil, fmt.Errorf("webgpu: buffer belongs to another device")
	case b.freed:
		return nil, fmt.Errorf("webgpu: use of a freed buffer")
	}
	return b, nil
}

// checkRange checks a byte range of a buffer for Read and Write.
func checkRange(op string, b *buffer, off int64, n int) error {
	if off < 0 || off+int64(n) > b.size {
		return fmt.Errorf("webgpu: %s of bytes [%d,%d) outside a %d-byte buffer", op, off, off+int64(n), b.size)
	}
	return nil
}

// Write copies src into b at byte offset off, after the work recorded so
// far.
func (d *Device) Write(db device.Buffer, off int64, src []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	b, err := d.own(db)
	if err != nil {
		return err
	}
	if err := checkRange("Write", b, off, len(src)); err != nil {
		return err
	}
	if len(src) == 0 {
		return nil
	}
	if err := d.flush(); err != nil { // queue writes land before unsubmitted work
		return err
	}
	lo, hi := off&^3, (off+int64(len(src))+3)&^3
	if lo != off || hi != off+int64(len(src)) {
		// Whole words only: merge the untouched bytes of the edge words.
		words := make([]byte, hi-lo)
		if err := d.readback(b, lo, words[:4], false); err != nil {
			return err
		}
		if err := d.readback(b, hi-4, words[len(words)-4:], false); err != nil {
			return err
		}
		copy(words[off-lo:], src)
		src = words
	}
	for len(src) > 0 { // in chunks: wgpu refuses copies of 2^31 bytes or more
		c := min(int64(len(src)), transferChunk)
		if err := d.queue.WriteBuffer(b.b, uint64(lo), src[:c]); err != nil {
			return fmt.Errorf("webgpu: Write: %v", err)
		}
		lo, src = lo+c, src[c:]
	}
	return nil
}

// transferChunk is the most bytes one Write or readback copies (a multiple
// of 4): larger transfers go in chunks, so the staging buffer (rounded up
// to a power of two) stays far below wgpu's largest buffer, 2^31-1 bytes.
// Tests lower it.
var transferChunk int64 = 1 << 28

// Read waits for pending work and copies bytes of b from byte offset off
// into dst.
func (d *Device) Read(db device.Buffer, off int64, dst []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	b, err := d.own(db)
	if err != nil {
		return err
	}
	if err := checkRange("Read", b, off, len(dst)); err != nil {
		return err
	}
	for int64(len(dst)) > transferChunk {
		if err := d.readback(b, off, dst[:transferChunk], false); err != nil {
			return err
		}
		off, dst = off+transferChunk, dst[transferChunk:]
	}
	return d.readback(b, off, dst, true)
}

// readback submits the pending work, copies bytes [off, off+len(dst)) of b
// (when b is not nil) and, with status set, the status slots in use to the
// staging buffer, waits, and returns the first error: a kernel's status
// error, a device error, or nil. Without status, kernel errors stay pending
// for the next Read or Sync.
func (d *Device) readback(b *buffer, off int64, dst []byte, status bool) error {
	lo, hi := off&^3, (off+int64(len(dst))+3)&^3
	n := int64(0)
	if b != nil && len(dst) > 0 {
		n = hi - lo
	}
	stat := int64(0)
	if status {
		stat = d.status.bytes()
	}
	statOff := (n + 7) &^ 7
	total := statOff + stat
	if total > 0 {
		if err := d.ensureStaging(total); err != nil {
			return err
		}
		enc, err := d.batch.encoder()
		if err != nil {
			return err
		}
		if n > 0 {
			if err := enc.CopyBufferToBuffer(b.b, uint64(lo), d.staging, 0, uint64(n)); err != nil {
				return fmt.Errorf("webgpu: Read: %v", err)
			}
		}
		if stat > 0 {
			if err := d.status.copyAndClear(enc, d.staging, statOff); err != nil {
				return err
			}
		}
	}
	if err := d.flush(); err != nil {
		return err
	}
	if total == 0 {
		if err := waitIdle(d.dev); err != nil {
			d.lost = err
			return err
		}
		d.bury()
		return d.noteError(d.uncap.take())
	}
	if int64(cap(d.scratch)) < total {
		d.scratch = make([]byte, total)
	}
	buf := d.scratch[:total]
	err := readMapped(d.dev, d.errs, d.staging, 0, buf)
	if err == errTimeout {
		d.lost = err
		return err
	}
	d.bury()
	if err != nil {
		return d.noteError(err)
	}
	if err := d.noteError(d.uncap.take()); err != nil {
		return err
	}
	if n > 0 {
		copy(dst, buf[off-lo:])
	}
	if !status {
		return nil
	}
	return d.status.check(buf[statOff:])
}

// ensureStaging makes the readback buffer at least n bytes.
func (d *Device) ensureStaging(n int64) error {
	if d.stageCap >= n {
		return nil
	}
	c := max(n, 1<<16)
	for c&(c-1) != 0 {
		c &= c - 1
	}
	if c < n {
		c <<= 1
	}
	sb, err := d.createBuffer("readback", c, wgpu.BufferUsage_MapRead|wgpu.BufferUsage_CopyDst)
	if err != nil {
		return err
	}
	if d.staging != nil {
		old := d.staging
		d.graveyard = append(d.graveyard, func() {
			old.Destroy()
			old.Release()
		})
	}
	d.staging, d.stageCap = sb, c
	return nil
}
