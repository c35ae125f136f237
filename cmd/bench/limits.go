package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/shaderflow/shaderflow/cpu"
	"github.com/shaderflow/shaderflow/tensor/bench"
)

// measureLimits measures this machine's ceilings into lim: the FMA peak on
// every core and on one, and STREAM-triad bandwidth from DRAM on every core
// and on one, each the best of a few rounds and of what lim already holds (on
// a shared machine a ceiling is what the hardware can do, not what was left
// over, so the command measures at the start and again at the end). When
// isa, the instruction set the kernels use, is narrower than the widest the
// hardware has (SHADERFLOW_CPU_ISA caps it), the peak of isa is added too.
func measureLimits(lim map[string]float64, quick bool, isa string) {
	rounds, dur, bytes := 2, 300*time.Millisecond, 3<<29
	if quick {
		rounds, dur, bytes = 1, 150*time.Millisecond, 3<<27
	}
	threads := runtime.GOMAXPROCS(0)
	best := func(key string, v float64) { lim[key] = max(lim[key], v) }
	for range rounds {
		best(limitFMA, cpu.PeakGFLOPS(threads, dur))
		best(limitFMA1, cpu.PeakGFLOPS(1, dur))
		if isa != cpu.DetectedISA() {
			if v, err := cpu.PeakGFLOPSFor(isa, threads, dur); err == nil {
				best("fma_"+isa+"_gflops", v)
			}
		}
		best(limitDRAM, cpu.MeasureBandwidth(threads, bytes))
		best(limitDRAM1, cpu.MeasureBandwidth(1, bytes))
	}
}

// loadAverage returns the 1-, 5- and 15-minute load averages as
// /proc/loadavg prints them, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// localLimit measures, right after benchmark c gave res, the ceiling it is
// read against (STREAM triad for a memory-bound benchmark, the FMA peak for
// a compute-bound one) over a short interval, raises lim's entry for it to
// that figure if it is higher (a ceiling is the best the machine showed at
// any time of the run), and returns limitNote's note on the two.
func localLimit(lim map[string]float64, c benchCase, res bench.Result) string {
	threads := runtime.GOMAXPROCS(0)
	if c.limit == limitDRAM {
		bw := cpu.MeasureBandwidth(threads, 3<<27)
		best := max(lim[limitDRAM], bw)
		lim[limitDRAM] = best
		return limitNote("STREAM", "GB/s", bw, best, res.GBPerSec())
	}
	peak := cpu.PeakGFLOPS(threads, 100*time.Millisecond)
	best := max(lim[limitFMA], peak)
	lim[limitFMA] = best
	return limitNote("FMA peak", "GFLOP/s", peak, best, res.GFLOPPerSec())
}

// disturbedBelow is the fraction of the run's best ceiling under which a
// ceiling measured right after a benchmark says the machine was busy.
const disturbedBelow = 0.5

// limitNote compares a result (got) with the ceiling now measured right
// after it: on a shared machine it says how much of what the machine offered
// at that moment the kernel used. A ceiling under half the run's best, or a
// result above the ceiling, means another process disturbed one of the two
// measurements; the note then says so instead of giving a ratio.
func limitNote(limit, unit string, now, best, got float64) string {
	switch {
	case now < disturbedBelow*best:
		return fmt.Sprintf("%s right after: %.1f %s, under half the run's best (%.1f): the machine was busy, no ratio given", limit, now, unit, best)
	case got > now:
		return fmt.Sprintf("%s right after: %.1f %s, below this result (%.1f): a measurement was disturbed, no ratio given", limit, now, unit, got)
	}
	return fmt.Sprintf("%s right after: %.1f %s, this is %.0f%% of it", limit, now, unit, 100*got/now)
}
