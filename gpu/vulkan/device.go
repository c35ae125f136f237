//go:build cgo

package vulkan

/*
#include <stdlib.h>
#include "native.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// errLost is wrapped by every error after the device was lost.
var errLost = device.ErrDeviceLost

// Device is an opened Vulkan adapter. It implements device.Device; every
// method is safe for concurrent use (the front end serializes calls, but Free
// may come from finalizers on other goroutines).
type Device struct {
	mu   sync.Mutex
	in   *instance
	ad   *adapter
	info device.Info
	plan memoryPlan
	// loopLimit is the target's MaxLoopIterations (tests lower it).
	loopLimit int
	// bindingLimit is the target's MaxBindingBytes (tests lower it).
	bindingLimit int64

	dev     vk.Device
	queue   vk.Queue
	c       *C.sf_dev
	cmdPool vk.CommandPool

	// preserveNaN: VK_KHR_shader_float_controls is enabled and modules keep
	// their SignedZeroInfNanPreserve declarations (floatcontrols.go).
	preserveNaN bool

	layoutBindings int // bindings of the descriptor set layout: params + data
	dsl            vk.DescriptorSetLayout
	pipeLayout     vk.PipelineLayout
	pipelines      pipelineCache
	dummy          *rawBuffer // bound to unused data bindings
	statusBuf      *Buffer    // out-of-range flags of gather and scatter
	statusUses     []*gpu.StatusUse

	scratchReads, scratchWrites [1 + shaders.DataBindings]*Buffer
	scratchBufs                 [shaders.DataBindings]*Buffer
	writeBufs                   [4]device.Buffer
	args                        *C.sf_dispatch_args // in C memory, filled per dispatch
	stats                       Stats

	descMode    descriptorMode
	sets        *setCache  // cached descriptor sets (descCache)
	arena       *rawBuffer // params words and small writes; a part per batch
	paramsRange int64      // binding 0's range in cached sets

	batches  [numBatches]*batch
	next     int    // the batch to record next
	rec      *batch // the batch being recorded, or nil
	seq      uint64 // sequence number of the newest batch
	done     uint64 // every batch with seq <= done has completed
	epoch    uint64 // hazard epoch: bumped at every barrier
	memCount int    // live VkDeviceMemory objects
	nextID   uint64
	live     map[*Buffer]struct{}

	calls     uint64 // kernel calls recorded (see KernelTime.Call)
	profiling bool
	times     []KernelTime
	tsBase    time.Time // host time of device timestamp 0 (see collectTimes)

	valCursor uint64 // validation messages already reported
	lost      error  // set once the device is lost
	closed    bool
	deferred  error // an error a kernel hit after its call returned
}

// open creates the logical device of an adapter.
func open(in *instance, a *adapter) (dev *Device, err error) {
	d := &Device{in: in, ad: a, info: a.info, plan: planMemory(&a.mem), live: map[*Buffer]struct{}{},
		loopLimit: gpu.LoopLimit(a.info.Name), bindingLimit: a.maxStorageRange}
	d.valCursor = uint64(C.sf_debug_count())
	defer func() {
		if err != nil {
			d.destroy()
			dev = nil
		}
	}()
	qi := []vk.DeviceQueueCreateInfo{{
		SType:            vk.StructureTypeDeviceQueueCreateInfo,
		QueueFamilyIndex: a.queueFamily,
		QueueCount:       1,
		PQueuePriorities: []float32{1},
	}}
	ci := &vk.DeviceCreateInfo{
		SType:                vk.StructureTypeDeviceCreateInfo,
		QueueCreateInfoCount: 1,
		PQueueCreateInfos:    qi,
	}
	d.layoutBindings = 1 + shaders.DataBindings
	if d.descMode, err = chooseDescriptors(a, d.layoutBindings); err != nil {
		return nil, err
	}
	var exts []string
	if d.descMode == descPush {
		exts = append(exts, pushExtension+"\x00")
	}
	if d.preserveNaN = a.preserveNaN && !noFloatControlsForTests; d.preserveNaN {
		exts = append(exts, floatControlsExtension+"\x00")
	}
	ci.EnabledExtensionCount = uint32(len(exts))
	ci.PpEnabledExtensionNames = exts
	if a.robust {
		// Out-of-bounds accesses of a faulty kernel then read zero and
		// write nothing instead of corrupting memory.
		ci.PEnabledFeatures = []vk.PhysicalDeviceFeatures{{RobustBufferAccess: vk.True}}
	}
	var dh vk.Device
	res := vk.CreateDevice(a.pd, ci, nil, &dh)
	ci.Free()
	qi[0].Free()
	for i := range ci.PEnabledFeatures {
		ci.PEnabledFeatures[i].Free()
	}
	if err := vkErr("vkCreateDevice", res); err != nil {
		return nil, fmt.Errorf("vulkan: opening %s: %w", a.info.Name, err)
	}
	d.dev = dh
	var q vk.Queue
	vk.GetDeviceQueue(d.dev, a.queueFamily, 0, &q)
	d.queue = q
	d.args = (*C.sf_dispatch_args)(C.calloc(1, C.size_t(unsafe.Sizeof(C.sf_dispatch_args{}))))
	var missing *C.char
	d.c = C.sf_dev_new(C.VkDevice(unsafe.Pointer(d.dev)), C.VkQueue(unsafe.Pointer(d.queue)), &missing)
	if d.c == nil {
		return nil, fmt.Errorf("vulkan: the driver lacks %s: %w", C.GoString(missing), device.ErrUnavailable)
	}
	if d.descMode == descPush && C.sf_dev_load_push(d.c) == 0 {
		return nil, fmt.Errorf("vulkan: the driver lacks vkCmdPushDescriptorSetKHR: %w", device.ErrUnavailable)
	}
	pci := &vk.CommandPoolCreateInfo{
		SType:            vk.StructureTypeCommandPoolCreateInfo,
		Flags:            vk.CommandPoolCreateFlags(vk.CommandPoolCreateResetCommandBufferBit),
		QueueFamilyIndex: a.queueFamily,
	}
	var cp vk.CommandPool
	res = vk.CreateCommandPool(d.dev, pci, nil, &cp)
	pci.Free()
	d.cmdPool = cp
	if err := vkErr("vkCreateCommandPool", res); err != nil {
		return nil, err
	}
	if err := d.createLayouts(); err != nil {
		return nil, err
	}
	d.paramsRange = min(paramsRange, d.ad.maxStorageRange)
	// The last batch's part ends paramsRange before the arena does, so that
	// every dynamic offset leaves a whole range inside the buffer.
	if d.arena, err = d.createBuffer(numBatches*arenaBytes+d.paramsRange, true); err != nil {
		return nil, err
	}
	for i := range d.batches {
		if d.batches[i], err = d.newBatch(i); err != nil {
			return nil, err
		}
	}
	pool, err := d.createDescriptorPool(setCacheSize)
	d.sets = newSetCache(pool)
	if err != nil {
		return nil, err
	}
	if d.dummy, err = d.createBuffer(16, false); err != nil {
		return nil, err
	}
	if d.statusBuf, err = d.allocLocked(statusBytes); err != nil {
		return nil, err
	}
	if err = d.writeLocked(d.statusBuf, 0, make([]byte, statusBytes)); err == nil {
		err = d.drain()
	}
	if err != nil {
		return nil, err
	}
	return d, d.takeErrors()
}

// Info describes the adapter.
func (d *Device) Info() device.Info { return d.info }

// usable returns the error that makes the device unusable, if any.
func (d *Device) usable() error {
	switch {
	case d.closed:
		return fmt.Errorf("vulkan: %w", device.ErrClosed)
	case d.lost != nil:
		return d.lost
	}
	return nil
}

// check turns a VkResult of the C layer into an error, marking the device
// lost on VK_ERROR_DEVICE_LOST.
func (d *Device) check(op string, r C.VkResult) error {
	err := vkErr(op, vk.Result(r))
	if err != nil && errors.Is(err, device.ErrDeviceLost) && d.lost == nil {
		d.lost = err
	}
	return err
}

// takeErrors returns (and clears) the deferred error, the validation
// messages recorded since the last call and the status flags of finished
// kernels. It must be called with no work pending.
func (d *Device) takeErrors() error {
	var errs []error
	if d.deferred != nil {
		errs = append(errs, d.deferred)
		d.deferred = nil
	}
	if msgs := validationMessages(&d.valCursor); len(msgs) > 0 {
		errs = append(errs, &ValidationError{Messages: msgs})
	}
	if err := d.takeStatus(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ValidationError carries the messages the Vulkan validation layer reported
// (see EnvValidation).
type ValidationError struct {
	Messages []string
}

// Error lists the first messages.
func (e *ValidationError) Error() string {
	const show = 4
	msgs := e.Messages[:min(len(e.Messages), show)]
	s := fmt.Sprintf("vulkan: %d validation error(s):\n  %s", len(e.Messages), strings.Join(msgs, "\n  "))
	if len(e.Messages) > show {
		s += fmt.Sprintf("\n  ... and %d more", len(e.Messages)-show)
	}
	return s
}

// Sync waits for all pending work and returns the first deferred error.
func (d *Device) Sync() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	if err := d.drain(); err != nil {
		return err
	}
	return d.takeErrors()
}

// Close waits for pending work and releases the device and every buffer
// still allocated on it.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	var err error
	if d.lost == nil {
		err = d.drain()
	}
	d.destroy()
	d.closed = true
	return err
}

// destroy releases every object of the device (after the work is done or
// the device is lost).
func (d *Device) destroy() {
	if d.dev == nil {
		return
	}
	vk.DeviceWaitIdle(d.dev)
	for _, b := range d.batches {
		if b != nil {
			b.submitted = false
			d.destroyBatch(b)
		}
	}
	for b := range d.live {
		d.release(b)
	}
	if d.sets != nil && d.sets.pool != vk.NullDescriptorPool {
		vk.DestroyDescriptorPool(d.dev, d.sets.pool, nil)
	}
	if d.arena != nil {
		d.destroyRaw(d.arena)
	}
	if d.dummy != nil {
		d.destroyRaw(d.dummy)
	}
	d.destroyPipelines()
	if d.cmdPool != vk.NullCommandPool {
		vk.DestroyCommandPool(d.dev, d.cmdPool, nil)
	}
	if d.c != nil {
		C.sf_dev_free(d.c)
		d.c = nil
	}
	if d.args != nil {
		C.free(unsafe.Pointer(d.args))
		d.args = nil
	}
	vk.DestroyDevice(d.dev, nil)
	d.dev = nil
}
