package cpu

import (
	"flag"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

var (
	modeReport  = flag.Bool("cpu.modereport", false, "run TestModeReport: cached against streaming kernels")
	modeReportN = flag.Int("cpu.modereportn", 10_000_000, "TestModeReport's number of elements")
)

// modeCase is one measured workload: kernels run in order.
type modeCase struct {
	name    string
	kernels []*device.ElementwiseKernel
}

// reportCases builds the elementwise benchmarks of cmd/bench on n normal
// random floats: add, relu, tanh, sigmoid, gelu, exp, and the chain
// relu(x*z + x) * 0.5 fused (one kernel) and unfused (four).
func reportCases(t *testing.T, d *Device, n int) []modeCase {
	r := rand.New(rand.NewPCG(1, 2))
	shape := []int{n}
	buf := func(fill bool) device.View {
		v := device.Contiguous(d.mustAlloc(int64(4*n)), device.Float32, 0, shape)
		vals := make([]byte, 4*n)
		for i := range n {
			x := float32(0)
			if fill {
				x = float32(r.NormFloat64())
			}
			putU32(vals[4*i:], math.Float32bits(x))
		}
		require.NoError(t, d.Write(v.Buf, 0, vals))
		return v
	}
	x, z, out, t1, t2 := buf(true), buf(true), buf(false), buf(false), buf(false)
	kernel := func(p device.Program, ins []device.View, o device.View) *device.ElementwiseKernel {
		return &device.ElementwiseKernel{Shape: shape, Inputs: ins, Program: p, Outputs: []device.View{o}}
	}
	unary := func(op device.Op, in, o device.View) *device.ElementwiseKernel {
		var b device.Builder
		b.Output(b.Unary(op, b.Input(0, device.Float32)))
		return kernel(b.P, []device.View{in}, o)
	}
	binary := func(op device.Op, a, c, o device.View) *device.ElementwiseKernel {
		var b device.Builder
		b.Output(b.Binary(op, b.Input(0, device.Float32), b.Input(1, device.Float32)))
		return kernel(b.P, []device.View{a, c}, o)
	}
	var half device.Builder
	half.Output(half.Binary(device.OpMul, half.Input(0, device.Float32), half.Const(0.5, device.Float32)))
	chain := benchChain4(d, n)
	chain.Inputs, chain.Outputs = []device.View{x, z}, []device.View{out}
	cs := []modeCase{{"add", []*device.ElementwiseKernel{binary(device.OpAdd, x, z, out)}}}
	for _, op := range []device.Op{device.OpRelu, device.OpTanh, device.OpSigmoid, device.OpGeluErf, device.OpExp} {
		cs = append(cs, modeCase{op.String(), []*device.ElementwiseKernel{unary(op, x, out)}})
	}
	return append(cs, modeCase{"chain4 fused", []*device.ElementwiseKernel{chain}},
		modeCase{"chain4 unfused", []*device.ElementwiseKernel{
			binary(device.OpMul, x, z, t1), binary(device.OpAdd, t1, x, t2), unary(device.OpRelu, t2, t1), kernel(half.P, []device.View{t1}, out),
		}})
}

// TestModeReport measures each case in several settings, alternating
// them round by round in the same process, with STREAM (a DRAM-size triad
// on every core) measured in each round too, and logs per case and setting
// the medians of wall time, process CPU time, GB/s and the fraction of
// that round's STREAM (opt-in: -cpu.modereport, -cpu.modereportn). The
// settings: "before", Go-heap buffers and the interpreter with cached
// kernels only (the backend before streaming stores, huge pages and the
// fused machine); "stream", huge-page buffers and streaming kernels at
// every size, no fused machine; "after", the backend as it is.
func TestModeReport(t *testing.T) {
	if !*modeReport {
		t.Skip("run with -cpu.modereport")
	}
	n, rounds := *modeReportN, 15
	d := newDevice(t, 0)
	reps := max(1, 10_000_000/n) // at least 10M elements per measurement
	type setting struct {
		name       string
		huge       bool
		streamMin  int
		fused      bool
		cases      []modeCase
		wall, cpu  [][]float64
		gbps, frac [][]float64
	}
	settings := []*setting{
		{name: "before", streamMin: math.MaxInt},
		{name: "stream", huge: true, streamMin: 0},
		{name: "after", huge: true, streamMin: streamMinBytes, fused: true},
	}
	defer func(v int) { streamMinBytes, useFused, hugeMin = v, true, defaultHugeMin }(streamMinBytes)
	for _, st := range settings {
		hugeMin = defaultHugeMin
		if !st.huge {
			hugeMin = math.MaxInt64
		}
		st.cases = reportCases(t, d, n)
		k := len(st.cases)
		st.wall, st.cpu, st.gbps, st.frac = make([][]float64, k), make([][]float64, k), make([][]float64, k), make([][]float64, k)
	}
	hugeMin = defaultHugeMin
	bytes := map[string]float64{"add": 12, "chain4 fused": 12, "chain4 unfused": 40}
	var streams []float64
	for round := -1; round < rounds; round++ { // round -1 warms up
		stream := MeasureBandwidth(d.workers, 3<<27)
		if round >= 0 {
			streams = append(streams, stream)
		}
		for c := range settings[0].cases {
			for _, st := range settings {
				streamMinBytes, useFused = st.streamMin, st.fused
				w0, c0 := time.Now(), processCPU()
				for range reps {
					for _, k := range st.cases[c].kernels {
						require.NoError(t, d.Elementwise(k))
					}
				}
				if round < 0 {
					continue
				}
				w := time.Since(w0).Seconds() / float64(reps)
				b := bytes[st.cases[c].name]
				if b == 0 {
					b = 8
				}
				gb := b * float64(n) / w / 1e9
				st.wall[c] = append(st.wall[c], w*1e3)
				st.cpu[c] = append(st.cpu[c], (processCPU()-c0).Seconds()*1e3/float64(reps))
				st.gbps[c] = append(st.gbps[c], gb)
				st.frac[c] = append(st.frac[c], 100*gb/stream)
			}
		}
	}
	med := func(v []float64) float64 { v = slices.Clone(v); slices.Sort(v); return v[len(v)/2] }
	t.Logf("n = %d, STREAM median %.2f GB/s (min %.2f, max %.2f)", n, med(streams), slices.Min(streams), slices.Max(streams))
	for c, cs := range settings[0].cases {
		for _, st := range settings {
			t.Logf("%-15s %-7s wall %7.3f ms  cpu %7.3f ms  %6.2f GB/s  %5.1f%% of STREAM", cs.name, st.name,
				med(st.wall[c]), med(st.cpu[c]), med(st.gbps[c]), med(st.frac[c]))
		}
	}
}
