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
package profiler
