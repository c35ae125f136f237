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
	freed   bool
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
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, device.ErrClosed
	}
	if bytes < 0 {
		return nil, fmt.Errorf("cpu: alloc of %d bytes", bytes)
	}
	if maxAlloc := d.info.Limits.MaxAllocBytes; bytes > maxAlloc {
		return nil, fmt.Errorf("cpu: alloc of %d bytes exceeds the largest allocation, %d bytes: %w", bytes, maxAlloc, device.ErrOutOfMemory)
	}
	if d.limit > 0 && d.inUse+bytes > d.limit {
		return nil, fmt.Errorf("cpu: alloc of %d bytes with %d in use exceeds the memory limit of %d bytes: %w",
			bytes, d.inUse, d.limit, device.ErrOutOfMemory)
	}
	d.inUse += bytes
	return newBuffer(d, bytes), nil
}

// Free releases a buffer. Freeing a foreign buffer or one already freed does
// nothing.
func (d *Device) Free(b device.Buffer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	cb, ok := b.(*buffer)
	if !ok || cb == nil || cb.dev != d || cb.freed {
		return
	}
	cb.release()
	d.inUse -= cb.size
}

// InUse returns the bytes currently allocated on the device.
func (d *Device) InUse() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.inUse
}

// rangeOf checks a byte range of a buffer for Write and Read.
func (d *Device) rangeOf(op string, b device.Buffer, off int64, n int) ([]byte, error) {
	if d.closed {
		return nil, device.ErrClosed
	}
	data, err := d.data(b)
	if err != nil {
		return nil, fmt.Errorf("cpu: %s: %w", op, err)
	}
	if off < 0 || off > int64(len(data)) || int64(n) > int64(len(data))-off {
		return nil, fmt.Errorf("cpu: %s of %d bytes at offset %d outside a buffer of %d bytes", op, n, off, len(data))
	}
	return data[off : off+int64(n)], nil
}

// Write copies src into b at byte offset off.
func (d *Device) Write(b device.Buffer, off int64, src []byte) error {
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

// Read copies len(dst) bytes of b from byte offset off into dst.
func (d *Device) Read(b device.Buffer, off int64, dst []byte) error {
	defer runtime.KeepAlive(b)
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
