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
// any time of the run), and returns a note comparing the result with it: on
// a shared machine this says how much of what the machine offered at that
// moment the kernel used.
func localLimit(lim map[string]float64, c benchCase, res bench.Result) string {
	threads := runtime.GOMAXPROCS(0)
	if c.limit == limitDRAM {
		bw := cpu.MeasureBandwidth(threads, 3<<27)
		lim[limitDRAM] = max(lim[limitDRAM], bw)
		return fmt.Sprintf("STREAM right after: %.2f GB/s, this is %.0f%% of it", bw, 100*res.GBPerSec()/bw)
	}
	peak := cpu.PeakGFLOPS(threads, 100*time.Millisecond)
	lim[limitFMA] = max(lim[limitFMA], peak)
	return fmt.Sprintf("FMA peak right after: %.1f GFLOP/s, this is %.0f%% of it", peak, 100*res.GFLOPPerSec()/peak)
}
