package tensor

import (
	"fmt"
	"io"
	"strings"
)

// FusionStats counts what the scheduler launched since the last reset.
type FusionStats struct {
	Kernels  int // kernels launched
	FusedOps int // operations computed inside kernels (elementwise ops, producers)
}

// String says what the figures count, e.g. "5 kernels, 15 operations fused".
func (s FusionStats) String() string {
	return fmt.Sprintf("%d kernels, %d operations fused", s.Kernels, s.FusedOps)
}

// KernelReport says which operations went into one kernel.
type KernelReport struct {
	Kind    string   // elementwise, reduce, matmul, conv, ...
	Ops     []string // the fused operations, in program order
	Inputs  int      // buffers read
	Outputs int      // buffers written
}

// String renders the report on one line.
func (k KernelReport) String() string {
	return fmt.Sprintf("%-11s in=%d out=%d ops=[%s]", k.Kind, k.Inputs, k.Outputs, strings.Join(k.Ops, " "))
}

const maxReports = 10000

// noteKernel counts a launch. The caller holds d.mu.
func (d *Device) noteKernel(kind string, ops []string, inputs, outputs int) {
	d.stats.Kernels++
	d.stats.FusedOps += len(ops)
	if d.reporting && len(d.report) < maxReports {
		d.report = append(d.report, KernelReport{Kind: kind, Ops: append([]string(nil), ops...), Inputs: inputs, Outputs: outputs})
	}
}

// launch runs one kernel, timed by the profiler under span (on the host, and
// on the device where it can time kernels: see kerneltime.go) and counted as
// a kernel of kind with the fused ops. The caller holds d.mu.
func (d *Device) launch(span, kind string, ops []string, inputs, outputs int, run func() error) error {
	timed := d.kernelTimingOn()
	s := d.prof.Start(span, "kernel")
	err := run()
	s.End()
	if timed {
		d.noteTimedLaunch(span)
	}
	d.noteKernel(kind, ops, inputs, outputs)
	return err
}

// FusionStats returns the launch counters.
func (d *Device) FusionStats() FusionStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stats
}

// ResetFusionStats zeroes the launch counters and the kernel report.
func (d *Device) ResetFusionStats() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stats = FusionStats{}
	d.report = d.report[:0]
}

// SetFusionReport turns recording of per-kernel reports on or off.
func (d *Device) SetFusionReport(on bool) {
	d.mu.Lock()
	d.reporting = on
	d.mu.Unlock()
}

// FusionReport returns the kernels recorded since reporting was turned on.
func (d *Device) FusionReport() []KernelReport {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]KernelReport(nil), d.report...)
}

// WriteFusionReport writes the recorded kernels one a line.
func (d *Device) WriteFusionReport(w io.Writer) error {
	for i, k := range d.FusionReport() {
		if _, err := fmt.Fprintf(w, "%4d %s\n", i, k); err != nil {
			return err
		}
	}
	return nil
}
