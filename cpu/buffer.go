package cpu

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// alignment is the byte alignment of every buffer's first element.
const alignment = 64

// buffer is a CPU allocation: an aligned Go byte slice, or for buffers of
// hugeMin bytes and more (on Linux) memory mapped with huge pages, unmapped
// by Free or, if the buffer is never freed, when it is garbage collected.
type buffer struct {
	data    []byte // len(data) == size; nil after Free or for size 0
	size    int64
	dev     *Device
	dropped bool            // Free was called (guarded by dev.memMu)
	freed   bool            // the memory was released (guarded by dev.mu)
	unmap   func()          // releases mapped memory; nil for Go memory
	cleanup runtime.Cleanup // unmaps if the buffer is collected unfreed
}

// mappedBytes counts the bytes of buffers currently mapped (see newBuffer).
var mappedBytes atomic.Int64

// newBuffer returns a zeroed buffer of n bytes.
func newBuffer(d *Device, n int64) *buffer {
	b := &buffer{size: n, dev: d}
	if n >= hugeMin {
		if data, unmap := mapBytes(int(n)); data != nil {
			mappedBytes.Add(n)
			b.data = data
			b.unmap = func() {
				unmap()
				mappedBytes.Add(-n)
			}
			// Kernels read data, not b, so every kernel method and Read and
			// Write keep their buffers alive until they return: a caller
			// may drop its last handle while the call still runs.
			b.cleanup = runtime.AddCleanup(b, func(f func()) { f() }, b.unmap)
			return b
		}
	}
	b.data = alignedBytes(int(n))
	return b
}

// release drops the buffer's memory.
func (b *buffer) release() {
	b.freed = true
	b.data = nil
	if b.unmap != nil {
		b.cleanup.Stop()
		b.unmap()
		b.unmap = nil
	}
}

// Bytes returns the allocation's size in bytes.
func (b *buffer) Bytes() int64 { return b.size }

// alignedBytes returns a zeroed byte slice of n bytes whose first element is
// aligned to alignment.
func alignedBytes(n int) []byte {
	if n == 0 {
		return nil
	}
	raw := make([]byte, n+alignment-1)
	skip := (alignment - int(uintptr(unsafe.Pointer(unsafe.SliceData(raw))))%alignment) % alignment
	return raw[skip : skip+n : skip+n]
}

// asF32 views b as float32 elements (trailing bytes ignored).
func asF32(b []byte) []float32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

// asI32 views b as int32 elements.
func asI32(b []byte) []int32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

// asU16 views b as uint16 elements (float16 and bfloat16 bits).
func asU16(b []byte) []uint16 {
	if len(b) < 2 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/2)
}

// asU32 views b as uint32 elements (raw 4-byte elements).
func asU32(b []byte) []uint32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

// asF32s views 32-bit words as float32 values (their bits unchanged).
func asF32s(u []uint32) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(u))), len(u))
}

// asU64 views b as uint64 elements (raw 8-byte elements).
func asU64(b []byte) []uint64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}

// data returns the bytes of a buffer of this device, or an error for a
// foreign, freed or nil buffer.
func (d *Device) data(b device.Buffer) ([]byte, error) {
	cb, ok := b.(*buffer)
	switch {
	case !ok || cb == nil:
		return nil, fmt.Errorf("cpu: buffer %T does not belong to the cpu backend", b)
	case cb.dev != d:
		return nil, fmt.Errorf("cpu: buffer belongs to another cpu device")
	case cb.freed:
		return nil, fmt.Errorf("cpu: use of a freed buffer")
	}
	return cb.data, nil
}

// Alloc returns a zeroed buffer of bytes bytes.
func (d *Device) Alloc(bytes int64) (device.Buffer, error) {
	if d.closed.Load() {
		return nil, device.ErrClosed
	}
	if bytes < 0 {
		return nil, fmt.Errorf("cpu: alloc of %d bytes", bytes)
	}
	if maxAlloc := d.info.Limits.MaxAllocBytes; bytes > maxAlloc {
		return nil, fmt.Errorf("cpu: alloc of %d bytes exceeds the largest allocation, %d bytes: %w", bytes, maxAlloc, device.ErrOutOfMemory)
	}
	d.memMu.Lock()
	defer d.memMu.Unlock()
	if d.limit > 0 && d.inUse+bytes > d.limit {
		return nil, fmt.Errorf("cpu: alloc of %d bytes with %d in use exceeds the memory limit of %d bytes: %w",
			bytes, d.inUse, d.limit, device.ErrOutOfMemory)
	}
	d.inUse += bytes
	return newBuffer(d, bytes), nil
}

// Free releases a buffer: at once when no kernel is pending, else after the
// kernels called before it (which may still read it). Its bytes stop
// counting against the memory limit at once. Freeing a foreign buffer or one
// already freed does nothing.
func (d *Device) Free(b device.Buffer) {
	cb, ok := b.(*buffer)
	if !ok || cb == nil || cb.dev != d {
		return
	}
	d.memMu.Lock()
	if cb.dropped {
		d.memMu.Unlock()
		return
	}
	cb.dropped = true
	d.inUse -= cb.size
	d.memMu.Unlock()
	if !d.synchronous && d.stream.busy() {
		d.stream.submit(func() error { d.release(cb); return nil })
		return
	}
	d.release(cb)
}

// release drops a freed buffer's memory once no kernel can use it.
func (d *Device) release(cb *buffer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	cb.release()
}

// InUse returns the bytes currently allocated on the device.
func (d *Device) InUse() int64 {
	d.memMu.Lock()
	defer d.memMu.Unlock()
	return d.inUse
}

// rangeOf checks a byte range of a buffer for Write and Read.
func (d *Device) rangeOf(op string, b device.Buffer, off int64, n int) ([]byte, error) {
	if d.closed.Load() {
		return nil, device.ErrClosed
	}
	data, err := d.data(b)
	if err != nil {
		return nil, fmt.Errorf("cpu: %s: %w", op, err)
	}
	if err := checkRange(op, off, n, int64(len(data))); err != nil {
		return nil, err
	}
	return data[off : off+int64(n)], nil
}

// checkRange refuses n bytes at offset off of a buffer of size bytes.
func checkRange(op string, off int64, n int, size int64) error {
	if off < 0 || off > size || int64(n) > size-off {
		return fmt.Errorf("cpu: %s of %d bytes at offset %d outside a buffer of %d bytes", op, n, off, size)
	}
	return nil
}

// Write copies src into b at byte offset off. While kernels are pending it
// queues a copy of src behind them (a kernel called before may still read
// b's old contents), checking the range first.
func (d *Device) Write(b device.Buffer, off int64, src []byte) error {
	if !d.synchronous && d.stream.busy() {
		cb, ok := b.(*buffer)
		switch {
		case d.closed.Load():
			return device.ErrClosed
		case !ok || cb == nil || cb.dev != d:
			return d.writeNow(b, off, src) // refused there
		}
		if err := checkRange("write", off, len(src), cb.size); err != nil {
			return err
		}
		staged := d.stage(src)
		d.stream.submit(func() error {
			err := d.writeNow(b, off, staged)
			d.unstage(staged)
			return err
		})
		return nil
	}
	return d.writeNow(b, off, src)
}

// writeNow copies src into b at byte offset off.
func (d *Device) writeNow(b device.Buffer, off int64, src []byte) error {
	defer runtime.KeepAlive(b)
	d.mu.Lock()
	defer d.mu.Unlock()
	dst, err := d.rangeOf("write", b, off, len(src))
	if err != nil {
		return err
	}
	copy(dst, src)
	return nil
}

// maxStaged and maxStagedBytes bound the idle staging copies a device keeps:
// a few batches' worth.
const (
	maxStaged      = 4
	maxStagedBytes = 4 << 20
)

// stage returns a copy of src in an idle staging slice or a new one.
func (d *Device) stage(src []byte) []byte {
	d.memMu.Lock()
	for i, s := range d.staging {
		if cap(s) >= len(src) {
			d.staging = append(d.staging[:i], d.staging[i+1:]...)
			d.memMu.Unlock()
			s = s[:len(src)]
			copy(s, src)
			return s
		}
	}
	d.memMu.Unlock()
	return append([]byte(nil), src...)
}

// unstage keeps s for a later Write, up to maxStaged slices of at most
// maxStagedBytes.
func (d *Device) unstage(s []byte) {
	d.memMu.Lock()
	defer d.memMu.Unlock()
	if len(d.staging) < maxStaged && cap(s) <= maxStagedBytes {
		d.staging = append(d.staging, s)
	}
}

// Read waits for pending kernels and copies len(dst) bytes of b from byte
// offset off into dst; it returns the first error a pending kernel hit
// instead, if any.
func (d *Device) Read(b device.Buffer, off int64, dst []byte) error {
	defer runtime.KeepAlive(b)
	if err := d.stream.drain(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	src, err := d.rangeOf("read", b, off, len(dst))
	if err != nil {
		return err
	}
	copy(dst, src)
	return nil
}

// uintptrOf returns the address of b's first byte (for alignment checks).
func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// uintptrOfF32 returns the address of *f (for alignment checks).
func uintptrOfF32(f *float32) uintptr { return uintptr(unsafe.Pointer(f)) }
