package gemm

import (
	"fmt"
	"runtime"
	"sync"
	"time"
)

// PeakGFLOPS measures the float32 FMA throughput ceiling of threads cores
// over about dur: each of threads goroutines, locked to an OS thread, runs a
// loop of independent fused multiply-adds on the widest vectors the hardware
// supports (zmm with AVX-512, ymm with AVX2, scalar Go otherwise), whatever
// SHADERFLOW_CPU_ISA says. It returns GFLOP/s (an FMA counts as two FLOPs)
// summed over the goroutines. threads < 1 counts as 1.
func PeakGFLOPS(threads int, dur time.Duration) float64 {
	return peakGFLOPS(hwLevel, threads, dur)
}

// PeakGFLOPSFor is PeakGFLOPS with the vectors of one instruction set:
// "avx512", "avx2", "neon" or "go". It returns an error when this machine or build
// cannot run that set.
func PeakGFLOPSFor(isa string, threads int, dur time.Duration) (float64, error) {
	l, ok := parseLevel(isa)
	if !ok {
		return 0, fmt.Errorf("gemm: unknown instruction set %q (want avx512, avx2, neon or go)", isa)
	}
	if !levelSupported(l) {
		return 0, fmt.Errorf("gemm: instruction set %s is not supported here (best: %s)", l, hwLevel)
	}
	return peakGFLOPS(l, threads, dur), nil
}

// peakChunk is the number of loop iterations between clock reads.
const peakChunk = 1 << 16

func peakGFLOPS(l level, threads int, dur time.Duration) float64 {
	threads = max(threads, 1)
	loop, perIter := peakLoopFor(l)
	loop(peakChunk) // warm the vector units before timing
	var wg sync.WaitGroup
	iters := make([]int, threads)
	start := time.Now()
	for t := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for time.Since(start) < dur {
				loop(peakChunk)
				iters[t] += peakChunk
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	total := 0
	for _, n := range iters {
		total += n
	}
	return float64(total) * float64(perIter) / elapsed / 1e9
}

// flopsPerIterGo is the FLOPs of one iteration of fmaPeakGo.
const flopsPerIterGo = 16

// fmaPeakGo runs n iterations of eight independent scalar multiply-adds.
func fmaPeakGo(n int) {
	var x0, x1, x2, x3, x4, x5, x6, x7 float32
	y, z := peakY, peakZ
	for i := 0; i < n; i++ {
		x0 = x0*y + z
		x1 = x1*y + z
		x2 = x2*y + z
		x3 = x3*y + z
		x4 = x4*y + z
		x5 = x5*y + z
		x6 = x6*y + z
		x7 = x7*y + z
	}
	if s := x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7; s != s {
		panic("gemm: fmaPeakGo produced NaN") // never: keeps the loop observable
	}
}

// peakY and peakZ are fmaPeakGo's operands, variables so that the compiler
// cannot fold the loop; x = x*0.5 + 0.25 converges to 0.5.
var peakY, peakZ float32 = 0.5, 0.25
