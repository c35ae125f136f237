package backends_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/internal/cputime"
	"github.com/shaderflow/shaderflow/tensor"
)

// addBenchElements is the length of the vectors the Add benchmarks add: 40 MB
// each, larger than any cache, so the figures measure memory traffic.
const addBenchElements = 10_000_000

// addStyles are the three ways of writing c := a.Add(b); c.Realize() in a
// loop: as PyTorch users write it, nothing released (the results become
// garbage and the device's reclaimer returns their memory); inside a Scope
// per step; with Release.
var addStyles = []struct {
	name string
	run  func(dev *tensor.Device, a, x *tensor.Tensor) error
}{
	{"unscoped", func(_ *tensor.Device, a, x *tensor.Tensor) error {
		c := a.Add(x)
		return c.Realize()
	}},
	{"scoped", func(dev *tensor.Device, a, x *tensor.Tensor) error {
		var err error
		dev.Scope(func() { err = a.Add(x).Realize() })
		return err
	}},
	{"released", func(_ *tensor.Device, a, x *tensor.Tensor) error {
		c := a.Add(x)
		defer c.Release()
		return c.Realize()
	}},
}

// BenchmarkAdd times each style on every backend this machine has (the
// unscoped loop is the one to compare with the scoped one), counting the
// bytes read and written (12 per element) and reporting the process CPU
// time per op, the device allocations per op and the pool's peak reserved
// bytes as a multiple of the live set (a, b and one result).
func BenchmarkAdd(b *testing.B) {
	for _, be := range tensor.Backends() {
		for _, st := range addStyles {
			b.Run(be.Name+"/"+st.name, func(b *testing.B) {
				dev, err := tensor.Open(be.Name)
				if err != nil {
					b.Skipf("%s: %v", be.Name, err)
				}
				defer dev.Close()
				benchAdd(b, dev, st.run)
			})
		}
	}
}

func benchAdd(b *testing.B, dev *tensor.Device, style func(dev *tensor.Device, a, x *tensor.Tensor) error) {
	n := addBenchElements
	a := tensor.Rand(dev, n)
	x := tensor.Rand(dev, n)
	if err := tensor.Realize(a, x); err != nil {
		b.Fatal(err)
	}
	// Warm up until the reclaimer's allowed growth has settled and the pool
	// holds the blocks the loop rotates through.
	for range 24 {
		if err := style(dev, a, x); err != nil {
			b.Fatal(err)
		}
	}
	if err := dev.Sync(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(12 * n))
	allocs := dev.PoolStats().DeviceAllocs
	b.ResetTimer()
	start, _ := cputime.Process()
	for b.Loop() {
		if err := style(dev, a, x); err != nil {
			b.Fatal(err)
		}
	}
	if err := dev.Sync(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	end, _ := cputime.Process()
	// CPU time (the collector's included) is steadier than wall time on a
	// shared machine.
	b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	live := float64(3 * 4 * n)
	b.ReportMetric(float64(dev.PoolStats().PeakReservedBytes)/live, "peak-reserved/live")
	b.ReportMetric(float64(dev.PoolStats().DeviceAllocs-allocs)/float64(b.N), "device-allocs/op")
}
