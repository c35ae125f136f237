//go:build (!amd64 && !arm64) || purego

package gemm

// implFor returns the pure-Go micro-kernel: this build has no assembly.
func implFor(level) *impl { return &implGo }

// peakLoopFor returns the pure-Go FMA throughput loop.
func peakLoopFor(level) (loop func(n int), flopsPerIter int) { return fmaPeakGo, flopsPerIterGo }
