//go:build cgo

package webgpu

import (
	"fmt"
	"sync"

	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// Device is one opened WebGPU adapter. Every call locks the device: wgpu
// reports errors through per-device error scopes, which concurrent calls
// would mix up.
type Device struct {
	mu     sync.Mutex
	info   device.Info
	target gpu.Target
	dev    *wgpu.Device
	queue  *wgpu.Queue
	errs   cError // errors of this package's own error scopes
	uncap  cError // errors raised outside any scope
	closed bool
	lost   error // sticky: the device is unusable

	nextID uint64
	live   map[*buffer]struct{}
	// freed buffers and cached objects that pending work may still use:
	// released once the queue is idle; buried counts the freed bytes.
	graveyard []func()
	buried    int64

	batch    batch
	pipes    pipelineCache
	groups   bindGroupCache
	status   statusState
	staging  *wgpu.Buffer
	stageCap int64
	scratch  []byte
}

// open creates a device on adapter a with the adapter's own limits.
func open(a *wgpu.Adapter, info device.Info) (_ *Device, err error) {
	limits := a.GetLimits().Limits
	wd, err := a.RequestDevice(&wgpu.DeviceDescriptor{
		Label:          "shaderflow",
		RequiredLimits: &wgpu.RequiredLimits{Limits: limits},
	})
	if err != nil {
		return nil, fmt.Errorf("webgpu: opening %s: %v: %w", info.Name, err, device.ErrUnavailable)
	}
	d := &Device{
		info: info,
		target: gpu.Target{
			MaxBindings:       info.Limits.MaxBuffersPerKernel,
			MaxBindingBytes:   info.Limits.MaxBindingBytes,
			BindingAlign:      int64(limits.MinStorageBufferOffsetAlignment),
			MaxWorkgroups:     int(limits.MaxComputeWorkgroupsPerDimension),
			MaxLoopIterations: gpu.LoopLimit(info.Name),
		},
		dev:   wd,
		queue: wd.GetQueue(),
		errs:  newCError(),
		uncap: newCError(),
		live:  map[*buffer]struct{}{},
	}
	setUncaptured(wd, d.uncap)
	defer func() {
		if err != nil {
			d.release()
		}
	}()
	if err := d.batch.init(d); err != nil {
		return nil, err
	}
	if err := checkLayout(wd, d.batch.paramsBuf, uint64(paramsBufferBytes)); err != nil {
		return nil, err
	}
	if err := d.status.init(d); err != nil {
		return nil, err
	}
	d.pipes.init()
	d.groups.init()
	return d, nil
}

// Info describes the adapter.
func (d *Device) Info() device.Info { return d.info }

// usable reports why the device cannot take calls, if it cannot.
func (d *Device) usable() error {
	if d.closed {
		return errClosed
	}
	return d.lost
}

// noteError turns a wgpu error into the call's error and marks the device
// lost when it is.
func (d *Device) noteError(err error) error {
	if err == nil {
		return nil
	}
	if we, ok := err.(*wgpuError); ok {
		switch we.typ {
		case errDeviceLost:
			d.lost = fmt.Errorf("%v: %w", err, device.ErrDeviceLost)
			return d.lost
		case errOutOfMemory:
			return fmt.Errorf("%v: %w", err, device.ErrOutOfMemory)
		}
	}
	return err
}

// Sync waits for all pending work and returns the first deferred error.
func (d *Device) Sync() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	return d.readback(nil, 0, nil, true)
}

// Close waits for pending work and releases the device and every buffer.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	var err error
	if d.lost == nil {
		err = d.readback(nil, 0, nil, true)
	}
	d.release()
	return err
}

// release frees everything the device holds; it is closed afterwards.
func (d *Device) release() {
	d.closed = true
	if d.dev == nil {
		return
	}
	d.batch.discard()
	if waitIdle(d.dev) != nil {
		return // work is still running: leak rather than free under it
	}
	d.bury()
	for b := range d.live {
		b.b.Destroy()
		b.b.Release()
	}
	d.live = nil
	d.groups.releaseAll()
	d.pipes.releaseAll()
	d.status.release()
	d.batch.release()
	if d.staging != nil {
		d.staging.Destroy()
		d.staging.Release()
		d.staging = nil
	}
	d.queue.Release()
	d.dev.Release()
	d.dev = nil
	d.errs.free()
	// d.uncap stays allocated: wgpu-native may still hold it as the
	// device's uncaptured-error userdata.
}

// bury runs the deferred releases; the queue must be idle.
func (d *Device) bury() {
	for _, f := range d.graveyard {
		f()
	}
	d.graveyard = d.graveyard[:0]
	d.buried = 0
}
