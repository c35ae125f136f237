//go:build cgo && linux

package cuda

/*
#include "native.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// buffer is a device allocation.
type buffer struct {
	ptr   C.CUdeviceptr // 0 for an empty buffer
	bytes int64
	dev   *Device
	freed bool
}

// Bytes returns the allocation's size.
func (b *buffer) Bytes() int64 { return b.bytes }

// Alloc allocates bytes of device memory, ordered on the device's stream
// where the device has memory pools. A request the device cannot hold
// returns an error wrapping device.ErrOutOfMemory.
func (d *Device) Alloc(bytes int64) (device.Buffer, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	if bytes < 0 {
		return nil, fmt.Errorf("cuda: Alloc(%d): negative size", bytes)
	}
	if bytes > d.info.Limits.MaxAllocBytes {
		return nil, fmt.Errorf("cuda: Alloc(%d): larger than the device's %d bytes: %w", bytes, d.info.Limits.MaxAllocBytes, device.ErrOutOfMemory)
	}
	b := &buffer{bytes: bytes, dev: d}
	if bytes > 0 {
		var ptr C.CUdeviceptr // a local, so C is never handed a pointer into a Go struct
		if err := d.note(d.drv.check(C.sf_cu_alloc(d.drv.api, d.ctx, C.size_t(bytes), &ptr))); err != nil {
			return nil, fmt.Errorf("cuda: Alloc(%d): %w", bytes, err)
		}
		b.ptr = ptr
	}
	d.live[b] = struct{}{}
	return b, nil
}

// Free releases b; work already queued that uses it completes first. An
// error is kept for the next Sync.
func (d *Device) Free(buf device.Buffer) {
	if d.closed {
		return
	}
	b, err := d.own(buf, "Free")
	if err == nil {
		err = d.release(b)
	}
	if err != nil {
		d.deferred = errors.Join(d.deferred, err)
	}
}

// release frees b's memory and forgets it.
func (d *Device) release(b *buffer) error {
	b.freed = true
	delete(d.live, b)
	if b.ptr == 0 {
		return nil
	}
	return d.note(d.drv.check(C.sf_cu_free(d.drv.api, d.ctx, b.ptr)))
}

// own returns buf as a live buffer of this device, or says why it is not.
func (d *Device) own(buf device.Buffer, op string) (*buffer, error) {
	b, ok := buf.(*buffer)
	switch {
	case !ok || b == nil:
		return nil, fmt.Errorf("cuda: %s: %T is not a CUDA buffer", op, buf)
	case b.dev != d:
		return nil, fmt.Errorf("cuda: %s: the buffer belongs to another device", op)
	case b.freed:
		return nil, fmt.Errorf("cuda: %s: the buffer was freed", op)
	}
	return b, nil
}

// span checks that [off, off+n) lies in b.
func span(b *buffer, off int64, n int, op string) error {
	if off < 0 || int64(n) > b.bytes || off > b.bytes-int64(n) {
		return fmt.Errorf("cuda: %s of %d bytes at offset %d is outside the buffer of %d bytes", op, n, off, b.bytes)
	}
	return nil
}

// Write copies src into buf at byte offset off, after the work queued
// before it, through the pinned staging buffer.
func (d *Device) Write(buf device.Buffer, off int64, src []byte) error {
	if err := d.usable(); err != nil {
		return err
	}
	b, err := d.own(buf, "Write")
	if err != nil {
		return err
	}
	if err := span(b, off, len(src), "Write"); err != nil {
		return err
	}
	if len(src) == 0 {
		return nil
	}
	st := C.sf_cu_write(d.drv.api, d.ctx, b.ptr+C.CUdeviceptr(off), unsafe.Pointer(&src[0]), C.size_t(len(src)))
	return d.note(d.drv.check(st))
}

// Read waits for queued work and copies len(dst) bytes of buf from byte
// offset off into dst. It also returns the out-of-range index error of a
// gather or scatter since the last check.
func (d *Device) Read(buf device.Buffer, off int64, dst []byte) error {
	if err := d.usable(); err != nil {
		return err
	}
	b, err := d.own(buf, "Read")
	if err != nil {
		return err
	}
	if err := span(b, off, len(dst), "Read"); err != nil {
		return err
	}
	var p unsafe.Pointer
	if len(dst) > 0 {
		p = unsafe.Pointer(&dst[0])
	}
	st := C.sf_cu_read(d.drv.api, d.ctx, p, b.ptr+C.CUdeviceptr(off), C.size_t(len(dst)))
	if err := d.note(d.drv.check(st)); err != nil {
		return err
	}
	return d.takeIndexErrors()
}
