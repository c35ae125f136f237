package device

import "time"

// KernelTime is one kernel's execution as the device measured it (with GPU
// timestamp queries, say), for the profiler.
type KernelTime struct {
	// Call says which kernel call recorded the kernel: the device's
	// KernelCalls count just after that call.
	Call uint64
	// Name is the backend's name for the kernel (an entry point, say).
	Name string
	// Start is when the kernel began, on the host's clock: an estimate,
	// since device and host clocks are only loosely related.
	Start time.Time
	// Duration is the device time from the kernel's start to its end.
	Duration time.Duration
}

// KernelTimer is an optional interface of devices that time kernels on the
// device (Info().Features.Timestamps). The front end finds it with a type
// assertion and feeds the times to its profiler next to the host's spans.
type KernelTimer interface {
	// SetProfiling turns timing of later kernels on or off.
	SetProfiling(on bool)
	// KernelCalls returns how many kernel calls (Elementwise, Reduce, ...)
	// the device has recorded since it opened.
	KernelCalls() uint64
	// KernelTimes returns the times of the timed kernels that completed
	// since the previous call, in execution order, and forgets them.
	KernelTimes() []KernelTime
}
