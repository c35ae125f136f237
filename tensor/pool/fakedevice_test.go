package pool

import (
	"errors"
	"fmt"
	"sync"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// fakeBuffer is a fakeDevice allocation.
type fakeBuffer struct {
	id    int
	bytes int64
}

func (b *fakeBuffer) Bytes() int64 { return b.bytes }

// fakeDevice implements device.Device with a memory capacity; only Info,
// Alloc and Free do anything. It panics on a Free of a buffer that is not
// allocated, so pool bugs that double-release surface at once.
type fakeDevice struct {
	mu        sync.Mutex
	info      device.Info
	capacity  int64 // 0: unlimited
	used      int64
	live      map[*fakeBuffer]bool
	nextID    int
	allocs    int // successful Alloc calls
	frees     int
	failures  int   // Alloc calls that failed
	shortBy   int64 // return buffers this much smaller than asked (a broken backend)
	allocArgs []int64
}

var errFakeUnsupported = errors.New("fake device: not supported")

func newFakeDevice(capacity, maxAlloc int64) *fakeDevice {
	return &fakeDevice{
		info: device.Info{Backend: "fake", Name: "fake0", Kind: device.KindCPU, MemoryBytes: capacity,
			Limits: device.Limits{MaxAllocBytes: maxAlloc}},
		capacity: capacity,
		live:     map[*fakeBuffer]bool{},
	}
}

func (d *fakeDevice) Info() device.Info { return d.info }

func (d *fakeDevice) Alloc(bytes int64) (device.Buffer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.allocArgs = append(d.allocArgs, bytes)
	if d.capacity > 0 && d.used+bytes > d.capacity {
		d.failures++
		return nil, fmt.Errorf("fake: %d bytes with %d of %d used: %w", bytes, d.used, d.capacity, device.ErrOutOfMemory)
	}
	d.nextID++
	b := &fakeBuffer{id: d.nextID, bytes: bytes - d.shortBy}
	d.live[b] = true
	d.used += b.bytes
	d.allocs++
	return b, nil
}

func (d *fakeDevice) Free(b device.Buffer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fb := b.(*fakeBuffer)
	if !d.live[fb] {
		panic(fmt.Sprintf("fake device: free of buffer %d that is not allocated", fb.id))
	}
	delete(d.live, fb)
	d.used -= fb.bytes
	d.frees++
}

// usedBytes returns the bytes currently allocated on the device.
func (d *fakeDevice) usedBytes() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.used
}

func (d *fakeDevice) Write(device.Buffer, int64, []byte) error    { return errFakeUnsupported }
func (d *fakeDevice) Read(device.Buffer, int64, []byte) error     { return errFakeUnsupported }
func (d *fakeDevice) Elementwise(*device.ElementwiseKernel) error { return errFakeUnsupported }
func (d *fakeDevice) Reduce(*device.ReduceKernel) error           { return errFakeUnsupported }
func (d *fakeDevice) MatMul(*device.MatMulKernel) error           { return errFakeUnsupported }
func (d *fakeDevice) Conv(*device.ConvKernel) error               { return errFakeUnsupported }
func (d *fakeDevice) Pool(*device.PoolKernel) error               { return errFakeUnsupported }
func (d *fakeDevice) Gather(*device.GatherKernel) error           { return errFakeUnsupported }
func (d *fakeDevice) Scatter(*device.ScatterKernel) error         { return errFakeUnsupported }
func (d *fakeDevice) Copy(*device.CopyKernel) error               { return errFakeUnsupported }
func (d *fakeDevice) Sync() error                                 { return nil }
func (d *fakeDevice) Close() error                                { return nil }

var _ device.Device = (*fakeDevice)(nil)
