package gputest

import (
	"runtime"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// RecordLoop records kernel(i) for i < b.N into d's batched submissions and
// reports the host cost of recording alone: wall time (record-ns/kernel)
// and, where the platform has a per-thread clock, the recording thread's
// CPU time (record-cpu-ns/kernel). The clock runs only around the
// Elementwise calls; every drainEvery kernels (a backend's batch size) the
// device is synchronized outside the clock, so that the device's own work
// and full-batch waits are not counted. On a software adapter the device
// work runs on the same cores: the CPU figure is the one to compare.
func RecordLoop(b *testing.B, d device.Device, drainEvery int, kernel func(int) *device.ElementwiseKernel) {
	Label(b, d)
	run(b, d.Elementwise(kernel(0)))
	run(b, d.Sync())
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var rec, cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := kernel(i)
		if i%drainEvery == 0 {
			b.StopTimer()
			run(b, d.Sync())
			b.StartTimer()
		}
		t0, c0 := time.Now(), ThreadCPU()
		run(b, d.Elementwise(k))
		rec += time.Since(t0)
		cpu += ThreadCPU() - c0
	}
	b.StopTimer()
	run(b, d.Sync())
	b.ReportMetric(float64(rec.Nanoseconds())/float64(b.N), "record-ns/kernel")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "record-cpu-ns/kernel")
	}
}

// BenchRecordOverhead is RecordLoop over one small add kernel (256
// elements) whose buffers never change.
func BenchRecordOverhead(b *testing.B, d device.Device, drainEvery int) {
	bufs := allocN(b, d, 4*256, 3)
	k := addKernel(bufs[0], bufs[1], bufs[2], 256)
	RecordLoop(b, d, drainEvery, func(int) *device.ElementwiseKernel { return k })
}
