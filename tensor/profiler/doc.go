// Package profiler records named, categorized time spans: kernel launches,
// fusion passes, host-device copies, optimizer steps, backend fallbacks.
//
// A Profiler keeps exact per-(name, category) aggregates (count, total, mean,
// max, min) for everything it records, and the most recent individual events
// (100 000 by default, see SetTraceLimit) for a Chrome trace. WriteSummary
// prints an aligned table, with any extra figures (such as the memory pool's
// stats) appended; WriteChromeTrace writes trace-event JSON that chrome://tracing
// and Perfetto open.
//
// Timing a scope:
//
//	sp := prof.Start("matmul", "kernel")
//	... work ...
//	sp.End()
//
// When the profiler is disabled, Start and End cost an atomic load and
// allocate nothing, so instrumentation can stay in hot paths. A Profiler is
// safe for concurrent use.
//
// # Device time
//
// Kernels run asynchronously on GPUs: the host span of a kernel launch times
// its recording, not its execution. Devices that measure kernels themselves
// (device.KernelTimer, such as Vulkan with timestamp queries) deliver each
// kernel's device time with RecordDevice, under the same name and category
// as its host span. Device times are aggregated apart (Row.DeviceCount,
// DeviceTotal, ...), shown as "dev count", "dev total" and "dev mean"
// columns of the summary, and drawn on "device" lanes of the trace
// (DeviceLane) at their start on the host's clock, an estimate. Sources that
// deliver late register a collector (AddCollector), which every report runs
// first; package tensor does so for its devices' kernel times.
package profiler
