package tensor

import "github.com/shaderflow/shaderflow/tensor/device"

// kernelTiming feeds the device's own kernel times (device.KernelTimer) to
// the profiler while the profiler is enabled: each launch's device time is
// recorded under the launch's span name, next to its host time.
type kernelTiming struct {
	resolved bool               // timer was looked up
	timer    device.KernelTimer // nil when the device cannot time kernels
	on       bool               // the profiler was enabled at the last launch
	calls    uint64             // the device's kernel calls after the last timed launch
	pending  []pendingKernel    // timed launches whose times have not come, oldest first
}

// pendingKernel is a launch whose device time is awaited.
type pendingKernel struct {
	call uint64 // the device's kernel-call count after the launch
	span string
}

// deliverEvery is how many pending launches make a launch deliver the times
// that have come, so that pending stays bounded when nobody reports.
const deliverEvery = 1024

// kernelTimingOn turns the device's timing on or off with the profiler and
// reports whether the next launch is timed. The caller holds d.mu.
func (d *Device) kernelTimingOn() bool {
	kt := &d.kt
	on := d.prof.Enabled()
	if on != kt.on {
		kt.on = on
		if !kt.resolved {
			kt.resolved = true
			if t, ok := d.raw.(device.KernelTimer); ok && d.info.Features.Timestamps {
				kt.timer = t
				d.prof.AddCollector(d.collectKernelTimes)
			}
		}
		if kt.timer != nil {
			kt.timer.SetProfiling(on)
			kt.calls = kt.timer.KernelCalls()
		}
	}
	return on && kt.timer != nil
}

// noteTimedLaunch remembers the span of a launch made while timing was on.
// The caller holds d.mu.
func (d *Device) noteTimedLaunch(span string) {
	kt := &d.kt
	if n := kt.timer.KernelCalls(); n != kt.calls { // the launch recorded a kernel
		kt.calls = n
		kt.pending = append(kt.pending, pendingKernel{n, span})
	}
	if len(kt.pending) >= deliverEvery {
		d.deliverKernelTimes()
	}
}

// collectKernelTimes is the profiler's collector: it delivers the times that
// have come.
func (d *Device) collectKernelTimes() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.closed {
		d.deliverKernelTimes()
	}
}

// deliverKernelTimes records the device times that have come under their
// launches' spans (kernels launched around the front end keep the device's
// names). The caller holds d.mu.
func (d *Device) deliverKernelTimes() {
	kt := &d.kt
	i := 0
	for _, t := range kt.timer.KernelTimes() {
		for i < len(kt.pending) && kt.pending[i].call < t.Call {
			i++ // launches that ran no timed kernel
		}
		name := t.Name
		if i < len(kt.pending) && kt.pending[i].call == t.Call {
			name = kt.pending[i].span
		}
		d.prof.RecordDevice(name, "kernel", t.Start, t.Duration)
	}
	kt.pending = append(kt.pending[:0], kt.pending[i:]...)
}
