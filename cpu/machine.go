package cpu

import (
	"time"

	"github.com/shaderflow/shaderflow/cpu/internal/gemm"
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
)

// Measurements of this machine's limits, for benchmark reports: what the
// CPU backend's kernels are measured against.

// PeakGFLOPS measures the float32 fused multiply-add throughput of threads
// cores over about dur, on the widest vectors the hardware supports whatever
// SHADERFLOW_CPU_ISA says, in GFLOP/s (an FMA counts as two operations).
func PeakGFLOPS(threads int, dur time.Duration) float64 { return gemm.PeakGFLOPS(threads, dur) }

// PeakGFLOPSFor is PeakGFLOPS on the vectors of one instruction set
// ("avx512", "avx2", "neon" or "go"); it returns an error when this machine
// or build cannot run that set.
func PeakGFLOPSFor(isa string, threads int, dur time.Duration) (float64, error) {
	return gemm.PeakGFLOPSFor(isa, threads, dur)
}

// MeasureBandwidth measures memory bandwidth like STREAM's triad
// (a[i] = b[i] + q*c[i] over three float32 arrays of bytes in all, split over
// threads goroutines) and returns the best pass in GB/s, counting 12 bytes
// per element. bytes well above the last-level cache measures DRAM.
func MeasureBandwidth(threads, bytes int) float64 { return vec.MeasureBandwidth(threads, bytes) }

// GemmISA names the instruction set of the matrix-multiply kernels alone
// ("avx512", "avx2", "neon" or "go").
func GemmISA() string { return gemm.ISA() }

// DetectedISA names the widest instruction set this CPU and build support
// ("avx512", "avx2", "neon" or "go"), whatever SHADERFLOW_CPU_ISA says.
func DetectedISA() string { return vec.Detected().String() }
