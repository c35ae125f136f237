//go:build cgo

package vulkan

/*
#include "native.h"
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// Batching limits: a batch is submitted when it holds maxBatchDispatches
// dispatches or its upload arena is full, and at every Read or Sync.
const (
	numBatches         = 3
	maxBatchDispatches = 256
	arenaBytes         = 1 << 20
	// bigUpload is the size from which a Write gets its own staging buffer
	// instead of arena space.
	bigUpload = arenaBytes / 4
	// fenceTimeout bounds one wait for the device; a longer wait is taken
	// as a hang and reported as a lost device.
	fenceTimeout = 10 * time.Minute
)

// batch is one command buffer with everything its commands use until it
// completes: descriptor sets, the upload arena (params words and small
// writes), staging buffers, buffers whose Free waits for it, and timestamps.
type batch struct {
	cb    vk.CommandBuffer
	fence vk.Fence
	pool  vk.DescriptorPool
	arena *rawBuffer   // the device's arena; this batch uses [arenaBase, arenaBase+arenaBytes)
	qp    vk.QueryPool // nil unless profiling
	nq    int          // queries in qp

	arenaBase int64

	seq        uint64 // sequence number; valid once recording started
	recording  bool
	profiled   bool // its queries were reset at begin: dispatches are timed
	submitted  bool
	arenaUsed  int64 // the arena's next free byte
	dispatches int
	temps      []*rawBuffer  // staging buffers destroyed at completion
	frees      []*Buffer     // buffers destroyed at completion
	kernels    []timedKernel // profiled kernels, two queries each
	submitAt   time.Time     // when it was submitted (profiled batches)
}

// timedKernel is a dispatch bracketed by timestamp queries.
type timedKernel struct {
	name string
	call uint64 // Device.calls when it was recorded
}

// chandle returns the C handles of the batch.
func (b *batch) ccb() C.VkCommandBuffer { return C.VkCommandBuffer(unsafe.Pointer(b.cb)) }
func (b *batch) cfence() C.VkFence      { return C.VkFence(uintptr(unsafe.Pointer(b.fence))) }
func (b *batch) cpool() C.VkDescriptorPool {
	return C.VkDescriptorPool(uintptr(unsafe.Pointer(b.pool)))
}
func (b *batch) cqp() C.VkQueryPool { return C.VkQueryPool(uintptr(unsafe.Pointer(b.qp))) }

// newBatch creates the Vulkan objects of batch i.
func (d *Device) newBatch(i int) (*batch, error) {
	b := &batch{arena: d.arena, arenaBase: int64(i) * arenaBytes}
	b.arenaUsed = b.arenaBase
	ai := &vk.CommandBufferAllocateInfo{
		SType:              vk.StructureTypeCommandBufferAllocateInfo,
		CommandPool:        d.cmdPool,
		Level:              vk.CommandBufferLevelPrimary,
		CommandBufferCount: 1,
	}
	cbs := make([]vk.CommandBuffer, 1)
	res := vk.AllocateCommandBuffers(d.dev, ai, cbs)
	ai.Free()
	if err := vkErr("vkAllocateCommandBuffers", res); err != nil {
		return nil, err
	}
	b.cb = cbs[0]
	fi := &vk.FenceCreateInfo{SType: vk.StructureTypeFenceCreateInfo}
	var fence vk.Fence
	res = vk.CreateFence(d.dev, fi, nil, &fence)
	fi.Free()
	b.fence = fence
	if err := vkErr("vkCreateFence", res); err != nil {
		return nil, err
	}
	var err error
	b.pool, err = d.createDescriptorPool(maxBatchDispatches)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// destroyBatch releases a batch's objects; the batch must be idle.
func (d *Device) destroyBatch(b *batch) {
	d.finishBatch(b)
	if b.qp != vk.NullQueryPool {
		vk.DestroyQueryPool(d.dev, b.qp, nil)
	}
	if b.pool != vk.NullDescriptorPool {
		vk.DestroyDescriptorPool(d.dev, b.pool, nil)
	}
	if b.fence != vk.NullFence {
		vk.DestroyFence(d.dev, b.fence, nil)
	}
	if b.cb != nil {
		vk.FreeCommandBuffers(d.dev, d.cmdPool, 1, []vk.CommandBuffer{b.cb})
	}
}

// current returns the batch being recorded, starting one if needed.
func (d *Device) current() (*batch, error) {
	if d.rec != nil {
		return d.rec, nil
	}
	b := d.batches[d.next]
	if b.submitted {
		if err := d.wait(b); err != nil {
			return nil, err
		}
	}
	if d.profiling && b.qp == vk.NullQueryPool {
		if err := d.createQueries(b); err != nil {
			return nil, err
		}
	}
	var qp C.VkQueryPool
	nq := 0
	if d.profiling {
		qp, nq = b.cqp(), b.nq
	}
	if err := d.check("vkBeginCommandBuffer", C.sf_begin(d.c, b.ccb(), qp, C.uint32_t(nq))); err != nil {
		return nil, err
	}
	d.seq++
	b.seq = d.seq
	b.recording = true
	b.profiled = d.profiling
	d.rec = b
	d.epoch++ // sf_begin's barrier orders everything before it
	return b, nil
}

// flush submits the batch being recorded, if any.
func (d *Device) flush() error {
	b := d.rec
	if b == nil {
		return nil
	}
	d.rec = nil
	d.next = (d.next + 1) % numBatches
	b.recording = false
	if b.profiled {
		b.submitAt = time.Now()
	}
	if err := d.check("vkQueueSubmit", C.sf_submit(d.c, b.ccb(), b.cfence())); err != nil {
		d.finishBatch(b)
		return err
	}
	b.submitted = true
	d.stats.Submits++
	return nil
}

// wait blocks until a submitted batch completes and recycles it.
func (d *Device) wait(b *batch) error {
	if !b.submitted {
		return nil
	}
	r := C.sf_wait(d.c, b.cfence(), C.uint64_t(fenceTimeout.Nanoseconds()))
	if r == C.SF_VK_TIMEOUT {
		d.lost = fmt.Errorf("vulkan: the device did not finish a batch within %v: %w", fenceTimeout, errLost)
		return d.lost
	}
	if err := d.check("vkWaitForFences", r); err != nil {
		return err
	}
	b.submitted = false
	if len(b.kernels) > 0 {
		d.collectTimes(b)
	}
	d.finishBatch(b)
	if b.seq > d.done {
		d.done = b.seq
	}
	return d.check("vkResetFences", C.sf_recycle(d.c, b.ccb(), b.cfence(), b.cpool()))
}

// finishBatch releases what a completed (or failed) batch held.
func (d *Device) finishBatch(b *batch) {
	for _, t := range b.temps {
		d.destroyRaw(t)
	}
	for _, f := range b.frees {
		d.release(f)
	}
	b.temps, b.frees, b.kernels = b.temps[:0], b.frees[:0], b.kernels[:0]
	b.arenaUsed, b.dispatches = b.arenaBase, 0
}

// drain submits the recording batch and waits for every batch.
func (d *Device) drain() error {
	err := d.flush()
	for i := 1; i <= numBatches; i++ { // oldest first
		b := d.batches[(d.next+i-1)%numBatches]
		if e := d.wait(b); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// upload reserves n bytes of the recording batch's part of the arena at the
// given alignment and returns their offset in the arena; ok is false when
// the batch's part is full.
func (b *batch) upload(n, align int64) (off int64, ok bool) {
	off = (b.arenaUsed + align - 1) &^ (align - 1)
	if off+n > b.arenaBase+arenaBytes {
		return 0, false
	}
	b.arenaUsed = off + n
	return off, true
}
