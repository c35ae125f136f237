// Package bench is Shaderflow's benchmark harness as a library: it times a
// function with warm-up excluded and the device synchronized before each
// clock stop, turns the samples into statistics and throughput (GB/s,
// GFLOP/s from the median), and writes reports in Markdown, JSON and as a PNG
// bar chart.
//
// A Report names the device (with its kind, so a software-emulated adapter is
// never passed off as a GPU), the driver and the host; it may carry the
// machine's limits (peak FMA rate, DRAM bandwidth) so that every result shows
// the fraction of the limit it reaches, and peer figures (PyTorch on the same
// machine, measured in the same run) for a side-by-side ratio. Compare checks a
// report against a stored baseline and lists regressions.
//
// Speed is measured here, never asserted in timed tests.
package bench
