//go:build cgo && linux

package cuda

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// BenchmarkLaunchHost measures the host's cost of kernel launches from Go
// through the test double (benchLaunches). The fake driver runs each
// one-thread kernel on the host inside cuLaunchKernel (or cuGraphLaunch),
// so these figures are the backend's host-side cost plus the fake's own
// work: they bound the backend's host overhead per kernel from above and
// say nothing about a GPU or a real driver's launch cost
// (BenchmarkHardwareLaunch measures that on hardware).
func BenchmarkLaunchHost(b *testing.B) {
	f := buildFake(b, nil, nil)
	d := f.open(b, 1<<16)
	b.Setenv("SF_FAKE_CUDA_LOG", "")
	benchLaunches(b, d)
}

// BenchmarkHardwareLaunch is benchLaunches on CUDA device 0 of the
// machine's real driver; it skips where there is none, unless
// SHADERFLOW_REQUIRE_BACKENDS names cuda.
func BenchmarkHardwareLaunch(b *testing.B) {
	d, ok := gputest.Open(b, "cuda").(*Device)
	require.True(b, ok)
	benchLaunches(b, d)
}

// benchLaunches measures the host time per kernel launch on d: "raw" is
// the launch wrapper alone (one cgo call to cuLaunchKernel) of a
// one-thread kernel, "elementwise" a one-element Elementwise call
// (validation, planning, the cached module, the launch), and
// "elementwise-graphs" the same with graphs on, the queue submitted every
// 32 launches (replays of one graph of 32 nodes). The stream is drained
// every 256 launches with the timer stopped, so the time is the host's
// (launches are asynchronous on a GPU) and not the queue's back-pressure.
func benchLaunches(b *testing.B, d *Device) {
	f32 := device.Float32
	x := gputest.Upload(b, d, f32, []float64{2})
	out := gputest.Alloc(b, d, 4)
	var p device.Builder
	p.Output(p.Binary(device.OpMul, p.Input(0, f32), p.Const(3, f32)))
	k := &device.ElementwiseKernel{Shape: []int{1}, Inputs: []device.View{device.Contiguous(x, f32, 0, []int{1})},
		Program: p.P, Outputs: []device.View{device.Contiguous(out, f32, 0, []int{1})}}
	require.NoError(b, d.Elementwise(k))
	scratch := gputest.Alloc(b, d, 4)
	sb, err := d.own(scratch, "bench")
	require.NoError(b, err)
	m, err := d.kernel(pokeSource, "poke.cu", "sf_poke")
	require.NoError(b, err)
	words := []int64{1, 0, int64(sb.ptr)}
	drain := func(b *testing.B, i int) {
		if i%256 == 0 {
			b.StopTimer()
			if err := d.Sync(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}

	b.Run("raw", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if err := d.launchBlocks(m, 1, 1, words); err != nil {
				b.Fatal(err)
			}
			i++
			drain(b, i)
		}
		require.NoError(b, d.Sync())
	})
	b.Run("elementwise", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if err := d.Elementwise(k); err != nil {
				b.Fatal(err)
			}
			i++
			drain(b, i)
		}
		require.NoError(b, d.Sync())
	})
	b.Run("elementwise-graphs", func(b *testing.B) {
		require.NoError(b, d.SetGraphs(true))
		defer func() { require.NoError(b, d.SetGraphs(false)) }()
		before := d.GraphStats().Replays
		i := 0
		for b.Loop() {
			if err := d.Elementwise(k); err != nil {
				b.Fatal(err)
			}
			if i++; i%32 == 0 {
				if err := d.flush(); err != nil {
					b.Fatal(err)
				}
			}
			drain(b, i)
		}
		require.NoError(b, d.Sync())
		b.ReportMetric(float64(d.GraphStats().Replays-before), "replays")
	})
	require.Equal(b, []float64{6}, gputest.Download(b, d, out, f32, 0, 1))
}
