//go:build cgo && linux

package cuda

/*
#include "native.h"
*/
import "C"

import (
	"errors"
	"strings"
	"time"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// The backend's devices time kernels for the profiler.
var _ device.KernelTimer = (*Device)(nil)

// SetProfiling turns timing of later kernel launches on or off. While on,
// each launch is bracketed by two CUDA events on the device's stream
// (timing.c) and KernelTimes reports it once it has completed. It does
// nothing on a driver without events (Info().Features.Timestamps false)
// or a device that is closed or lost; an error of the driver is kept for
// the next Sync. It implements device.KernelTimer, which the tensor
// profiler finds with a type assertion.
func (d *Device) SetProfiling(on bool) {
	if !d.info.Features.Timestamps || d.closed || d.lost != nil {
		return
	}
	flag := C.int(0)
	if on {
		flag = 1
	}
	if err := d.note(d.drv.check(C.sf_timing_set(d.drv.api, d.ctx, flag))); err != nil {
		d.deferred = errors.Join(d.deferred, err)
	}
}

// KernelCalls returns how many kernel calls have launched a kernel since
// the device opened (the Call of the newest KernelTime so far). The
// launches of one call (several where the host splits a kernel) share its
// number.
func (d *Device) KernelCalls() uint64 {
	if d.closed {
		return 0
	}
	return uint64(d.ctx.calls)
}

// timesBatch is how many kernel times one cgo call collects.
const timesBatch = 256

// KernelTimes returns the times of the timed launches that completed since
// the last call, in execution order (the device's one stream runs them in
// launch order), and forgets them. Launches still running are reported by
// a later call, after Sync. A kernel's Name is its entry point without the
// "sf_" prefix ("elementwise", "reduce", "copy", "gather", ...);
// cuBLAS's SGEMM, which may launch several kernels, is one time named
// blasKernelName.
func (d *Device) KernelTimes() []device.KernelTime {
	if d.closed || d.lost != nil || d.ctx.timer == nil {
		return nil
	}
	var out []device.KernelTime
	buf := make([]C.sf_kernel_time, timesBatch)
	names := map[C.CUfunction]string{}
	for _, m := range d.modules {
		names[m.fn] = strings.TrimPrefix(m.entry, "sf_")
	}
	names[blasTimingFn()] = blasKernelName
	for {
		n := int(C.sf_timing_collect(d.drv.api, d.ctx, &buf[0], C.int(len(buf))))
		for _, kt := range buf[:n] {
			out = append(out, device.KernelTime{
				Call:     uint64(kt.call),
				Name:     names[kt.fn],
				Start:    time.Unix(0, int64(kt.start_ns)),
				Duration: time.Duration(kt.duration_ns),
			})
		}
		if n < len(buf) {
			return out
		}
	}
}
