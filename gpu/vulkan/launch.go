//go:build cgo

package vulkan

/*
#include "native.h"
*/
import "C"

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// target returns what launches are encoded for on this device.
func (d *Device) target() gpu.Target {
	wg := d.info.Limits.MaxWorkgroups
	return gpu.Target{
		MaxBindings:       d.info.Limits.MaxBuffersPerKernel,
		MaxBindingBytes:   d.bindingLimit,
		BindingAlign:      d.ad.minStorageAlign,
		MaxWorkgroups:     min(wg[0], wg[1], 65535),
		MaxLoopIterations: d.loopLimit,
	}
}

// maxDataBindings is MaxBuffersPerKernel: the data bindings of the
// precompiled kernels, or fewer when the adapter allows fewer storage
// buffers per shader (binding 0 holds the params).
func maxDataBindings(adapterMax int) int { return max(0, min(adapterMax-1, shaders.DataBindings)) }

// record records one encoded launch into the current batch. writes are the
// buffers the kernel writes (for barrier placement); every bound buffer
// counts as read. The kernel methods count their calls in d.calls first, so
// that KernelTime.Call groups a call's launches.
func (d *Device) record(l *gpu.Launch, writes ...device.Buffer) error {
	if l.Workgroups == 0 {
		return nil
	}
	if len(l.Bindings) > shaders.DataBindings {
		return fmt.Errorf("vulkan: %s launch binds %d buffers, the kernels have %d bindings", l.Kind, len(l.Bindings), shaders.DataBindings)
	}
	p, err := d.pipelineFor(l)
	if err != nil {
		return err
	}
	bt, err := d.current()
	if err != nil {
		return err
	}
	nparams := int64(4 * len(l.Params))
	off, ok := bt.upload(nparams, d.ad.minStorageAlign)
	if !ok || bt.dispatches >= maxBatchDispatches {
		if err := d.flush(); err != nil {
			return err
		}
		if bt, err = d.current(); err != nil {
			return err
		}
		if off, ok = bt.upload(nparams, d.ad.minStorageAlign); !ok {
			return fmt.Errorf("vulkan: %s launch has %d bytes of params, more than the %d-byte arena", l.Kind, nparams, arenaBytes)
		}
	}
	if nparams > 0 {
		copy(unsafe.Slice((*uint32)(unsafe.Add(bt.arena.mapped, off)), len(l.Params)), l.Params)
	}

	a := d.args
	a.n = C.uint32_t(d.layoutBindings)
	var key setKey
	reads, bufs := d.scratchReads[:0], d.scratchBufs[:0]
	for i, b := range l.Bindings {
		vb := d.own(string(l.Kind), b.Buf)
		a.b[i+1] = C.sf_bind{buffer: vb.raw.handle(), offset: C.VkDeviceSize(b.Offset), _range: C.VkDeviceSize(b.Size)}
		key[i] = bindKey{id: vb.id, off: b.Offset, size: b.Size}
		if vb != d.statusBuf {
			reads = append(reads, vb)
		}
		if !slices.Contains(bufs, vb) {
			bufs = append(bufs, vb)
		}
	}
	for i := len(l.Bindings) + 1; i < d.layoutBindings; i++ {
		a.b[i] = C.sf_bind{buffer: d.dummy.handle(), offset: 0, _range: C.VkDeviceSize(d.dummy.size)}
	}
	ws := d.scratchWrites[:0]
	for _, b := range writes {
		ws = append(ws, d.own(string(l.Kind), b))
	}
	if err := d.bindDescriptors(bt, &key, bufs, off, nparams); err != nil {
		return err
	}
	a.barrier = C.int32_t(cflag(d.hazard(reads, ws)))
	a.cb, a.layout, a.pipeline = bt.ccb(), d.cplayout(), p.cpipe()
	a.qp, a.query = 0, 0
	if bt.profiled {
		a.qp, a.query = bt.cqp(), C.uint32_t(2*len(bt.kernels))
		bt.kernels = append(bt.kernels, timedKernel{name: l.Entry, call: d.calls})
	}
	gx, gy := gpu.Grid(l.Workgroups, d.target().MaxWorkgroups)
	a.gx, a.gy, a.gz = C.uint32_t(gx), C.uint32_t(gy), 1
	if err := d.check("vkCmdDispatch", C.sf_dispatch(d.c, a)); err != nil {
		return err
	}
	for _, b := range reads {
		b.lastUse = bt.seq
	}
	bt.dispatches++
	d.stats.Dispatches++
	if l.Status != nil {
		d.statusUses = append(d.statusUses, l.Status)
	}
	return nil
}
