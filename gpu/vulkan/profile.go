//go:build cgo

package vulkan

/*
#include "native.h"
*/
import "C"

import (
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// KernelTime is the device time of one kernel measured with timestamp
// queries (see device.KernelTime).
type KernelTime = device.KernelTime

// Stats counts the commands the device recorded.
type Stats struct {
	Dispatches uint64 // kernel dispatches
	Barriers   uint64 // pipeline barriers between dependent commands
	Submits    uint64 // queue submissions

	// Descriptor sets: dispatches that found their set in the cache, that
	// did not (and wrote a cached set or used a fresh one), and that used a
	// fresh set from the batch's pool (push descriptors count in none).
	DescriptorHits, DescriptorMisses, DescriptorFresh uint64
	// CachedSets is the number of descriptor sets in the cache now.
	CachedSets int
}

// Stats returns the counts since the device was opened.
func (d *Device) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.stats
	if d.sets != nil {
		s.CachedSets = d.sets.Len()
	}
	return s
}

// SetProfiling turns per-kernel timestamps on or off. While on, every
// dispatch is bracketed by timestamp queries (which may serialize the
// device's work) and KernelTimes returns the measured times; it has no
// effect when Info().Features.Timestamps is false. Turning it on submits
// the batch being recorded, so that the next kernel is timed. It implements
// device.KernelTimer, which the tensor profiler finds with a type assertion.
func (d *Device) SetProfiling(on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	on = on && d.info.Features.Timestamps
	if on && !d.profiling && d.rec != nil && !d.rec.profiled && d.usable() == nil {
		if err := d.flush(); err != nil && d.deferred == nil {
			d.deferred = err
		}
	}
	if on && !d.profiling {
		d.tsBase = time.Time{} // a fresh estimate for the new session
	}
	d.profiling = on
}

// KernelCalls returns how many kernel calls the device has recorded (the
// Call of the newest KernelTime so far).
func (d *Device) KernelCalls() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls
}

// KernelTimes returns the times of the kernels that completed since the
// last call, in execution order, and forgets them. Kernels still pending
// are reported by a later call after Sync.
func (d *Device) KernelTimes() []KernelTime {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.times
	d.times = nil
	return t
}

// createQueries gives a batch a timestamp query pool.
func (d *Device) createQueries(b *batch) error {
	ci := &vk.QueryPoolCreateInfo{
		SType:      vk.StructureTypeQueryPoolCreateInfo,
		QueryType:  vk.QueryTypeTimestamp,
		QueryCount: 2 * maxBatchDispatches,
	}
	var qp vk.QueryPool
	res := vk.CreateQueryPool(d.dev, ci, nil, &qp)
	ci.Free()
	b.qp = qp
	if err := vkErr("vkCreateQueryPool", res); err != nil {
		return err
	}
	b.nq = 2 * maxBatchDispatches
	return nil
}

// collectTimes reads a completed batch's timestamps. Device ticks become
// host times through tsBase, the host time of tick 0, estimated as the
// latest of (submission time - first timestamp) over the batches so far: no
// kernel then appears to start before its batch was submitted, and the
// estimate is tight for batches submitted to an idle device (such as those
// that Sync and Read submit).
func (d *Device) collectTimes(b *batch) {
	n := 2 * len(b.kernels)
	ts := make([]uint64, n)
	if C.sf_timestamps(d.c, b.cqp(), C.uint32_t(n), (*C.uint64_t)(unsafe.Pointer(&ts[0]))) != 0 {
		return
	}
	mask := ^uint64(0)
	if d.ad.timestampBits < 64 {
		mask = 1<<d.ad.timestampBits - 1
	}
	ns := func(ticks uint64) time.Duration { return time.Duration(float64(ticks&mask) * d.ad.timestampPeriod) }
	if base := b.submitAt.Add(-ns(ts[0])); base.After(d.tsBase) {
		d.tsBase = base
	}
	for i, k := range b.kernels {
		d.times = append(d.times, KernelTime{
			Call:     k.call,
			Name:     k.name,
			Start:    d.tsBase.Add(ns(ts[2*i])),
			Duration: ns(ts[2*i+1] - ts[2*i]),
		})
	}
}
