//go:build amd64 && !purego

package gemm

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"

	"golang.org/x/sys/unix"
)

var tuneFlag = flag.Bool("gemm.tune", false, "run TestTune: single-thread CPU-time GFLOP/s of candidate kernels and blockings")

// threadCPU returns the calling OS thread's CPU time in seconds.
func threadCPU() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return float64(ts.Sec) + float64(ts.Nsec)*1e-9
}

// cpuGFLOPS runs f reps times on a locked thread and returns the median
// GFLOP/s by thread CPU time, which time stolen by other processes does not
// inflate.
func cpuGFLOPS(flops float64, reps int, f func()) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f()
	g := make([]float64, reps)
	for i := range g {
		t0 := threadCPU()
		f()
		g[i] = flops / (threadCPU() - t0) / 1e9
	}
	sort.Float64s(g)
	return g[reps/2]
}

func TestTune(t *testing.T) {
	if !*tuneFlag {
		t.Skip("tuning runs with -gemm.tune")
	}
	kernels := map[string]impl{
		"14x32": {mr: 14, nr: 32, kernel: asmKernel(sgemmKernel14x32AVX512, 14, 32)},
		"12x32": {mr: 12, nr: 32, kernel: asmKernel(sgemmKernel12x32AVX512, 12, 32)},
		"8x48":  {mr: 8, nr: 48, kernel: asmKernel(sgemmKernel8x48AVX512, 8, 48)},
		"6x64":  {mr: 6, nr: 64, kernel: asmKernel(sgemmKernel6x64AVX512, 6, 64)},
	}
	names := []string{"14x32", "12x32", "8x48", "6x64"}
	rng := rand.New(rand.NewPCG(3, 4))
	peak := cpuGFLOPS(float64(flopsPerIterAVX512)*1e5, 5, func() { fmaPeakAVX512(1e5) })
	t.Logf("single-thread peak by CPU time: %.1f GFLOP/s", peak)
	for _, s := range []shape{{1024, 1024, 1024}, {64, 128, 784}, {128, 128, 128}} {
		a, b, c := randSlice(rng, s.m*s.k), randSlice(rng, s.k*s.n), make([]float32, s.m*s.n)
		flops := 2 * float64(s.m*s.n*s.k)
		for _, name := range names {
			for _, kc := range []int{128, 192, 256, 384, 512} {
				for _, mcPanels := range []int{8, 16, 32} {
					im := kernels[name]
					im.kc, im.mc = kc, mcPanels*im.mr
					p := &problem{m: s.m, n: s.n, k: s.k, alpha: 1, a: a, lda: s.k, b: b, ldb: s.n, c: c, ldc: s.n}
					g := cpuGFLOPS(flops, 5, func() { run(p, &im, 1) })
					fmt.Printf("%-16s %-6s kc=%-4d mc=%-4d %6.1f GFLOP/s %4.0f%%\n", fmt.Sprint(s), name, kc, im.mc, g, 100*g/peak)
				}
			}
		}
	}
}
