package tensor_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
)

// addBenchElements is the length of the vectors the Add benchmarks add: 40 MB
// each, larger than any cache, so the figures measure memory traffic.
const addBenchElements = 10_000_000

// benchAdd times c := a.Add(b); c.Realize() per op in the given style,
// counting the bytes read and written (12 per element), and reports the
// pool's peak reserved bytes as a multiple of the live set (a, b and c),
// how many reclaims (garbage collections) and device allocations an op ran,
// and the process CPU time per op.
func benchAdd(b *testing.B, style func(dev *tensor.Device, a, x *tensor.Tensor) error) {
	dev := openCPU(b)
	n := addBenchElements
	a := tensor.Rand(dev, n)
	x := tensor.Rand(dev, n)
	if err := tensor.Realize(a, x); err != nil {
		b.Fatal(err)
	}
	for range 3 {
		if err := style(dev, a, x); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(12 * n))
	reclaims := tensor.Reclaims(dev)
	allocs := dev.PoolStats().DeviceAllocs
	b.ResetTimer()
	start := processCPUTime()
	for b.Loop() {
		if err := style(dev, a, x); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	// CPU time (the collector's included) is steadier than wall time on a
	// shared machine.
	b.ReportMetric(float64(processCPUTime()-start)/float64(b.N), "cpu-ns/op")
	live := float64(3 * 4 * n)
	b.ReportMetric(float64(dev.PoolStats().PeakReservedBytes)/live, "peak-reserved/live")
	b.ReportMetric(float64(tensor.Reclaims(dev)-reclaims)/float64(b.N), "reclaims/op")
	b.ReportMetric(float64(dev.PoolStats().DeviceAllocs-allocs)/float64(b.N), "device-allocs/op")
}

// BenchmarkAddUnscoped is the allocating loop as PyTorch users write it:
// nothing is released; the results become garbage.
func BenchmarkAddUnscoped(b *testing.B) {
	benchAdd(b, func(_ *tensor.Device, a, x *tensor.Tensor) error {
		c := a.Add(x)
		return c.Realize()
	})
}

// BenchmarkAddScoped releases each result deterministically with Scope.
func BenchmarkAddScoped(b *testing.B) {
	benchAdd(b, func(dev *tensor.Device, a, x *tensor.Tensor) error {
		var err error
		dev.Scope(func() { err = a.Add(x).Realize() })
		return err
	})
}

// BenchmarkAddReleased releases each result with Release.
func BenchmarkAddReleased(b *testing.B) {
	benchAdd(b, func(_ *tensor.Device, a, x *tensor.Tensor) error {
		c := a.Add(x)
		defer c.Release()
		return c.Realize()
	})
}
