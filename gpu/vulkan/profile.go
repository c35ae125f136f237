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
)

// KernelTime is the device time of one kernel measured with timestamp
// queries.
type KernelTime struct {
	Entry    string // the kernel's entry point, e.g. "elementwise", "matmul"
	Duration time.Duration
}

// Stats counts the commands the device recorded.
type Stats struct {
	Dispatches uint64 // kernel dispatches
	Barriers   uint64 // pipeline barriers between dependent commands
	Submits    uint64 // queue submissions
}

// Stats returns the counts since the device was opened.
func (d *Device) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stats
}

// SetProfiling turns per-kernel timestamps on or off. While on, every
// dispatch is bracketed by timestamp queries (which may serialize the
// device's work) and KernelTimes returns the measured times; it has no
// effect when Info().Features.Timestamps is false. The profiler discovers
// this optional method with a type assertion:
//
//	if p, ok := dev.(interface{ SetProfiling(bool) }); ok { ... }
func (d *Device) SetProfiling(on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.profiling = on && d.info.Features.Timestamps
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

// collectTimes reads a completed batch's timestamps.
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
	for i, k := range b.kernels {
		ticks := (ts[2*i+1] - ts[2*i]) & mask
		d.times = append(d.times, KernelTime{Entry: k, Duration: time.Duration(float64(ticks) * d.ad.timestampPeriod)})
	}
}
