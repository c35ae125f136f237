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

// TestModeReport measures each case with the interpreter and the cached
// kernels only ("cached"), with the streaming and prefetching ones
// (at every size: "stream"), and with the fused machine
// too ("fused"), alternating the three in the same process, and logs the
// medians of wall and process CPU time (opt-in: -cpu.modereport).
func TestModeReport(t *testing.T) {
	if !*modeReport {
		t.Skip("run with -cpu.modereport")
	}
	n, rounds := *modeReportN, 15
	d := newDevice(t, 0)
	reps := max(1, 10_000_000/n) // at least 10M elements per measurement
	cases := reportCases(t, d, n)
	settings := []struct {
		name  string
		min   int
		fused bool
	}{{"cached", math.MaxInt, false}, {"stream", 0, false}, {"fused", 0, true}}
	defer func(v int) { streamMinBytes, useFused = v, true }(streamMinBytes)
	wall := make([][][]float64, len(cases))
	cpu := make([][][]float64, len(cases))
	for c := range cases {
		wall[c], cpu[c] = make([][]float64, len(settings)), make([][]float64, len(settings))
	}
	for round := -1; round < rounds; round++ { // round -1 warms up
		for c, cs := range cases {
			for s, st := range settings {
				streamMinBytes, useFused = st.min, st.fused
				w0, c0 := time.Now(), processCPU()
				for range reps {
					for _, k := range cs.kernels {
						require.NoError(t, d.Elementwise(k))
					}
				}
				if round >= 0 {
					wall[c][s] = append(wall[c][s], time.Since(w0).Seconds()*1e3)
					cpu[c][s] = append(cpu[c][s], (processCPU()-c0).Seconds()*1e3)
				}
			}
		}
	}
	med := func(v []float64) float64 { v = slices.Clone(v); slices.Sort(v); return v[len(v)/2] }
	for c, cs := range cases {
		for s, st := range settings {
			w, c := med(wall[c][s])/float64(reps), med(cpu[c][s])/float64(reps)
			t.Logf("%-15s %-7s wall %6.3f ms  cpu %6.3f ms  (%.3f ns per element per core)", cs.name, st.name, w, c, c*1e6/float64(n))
		}
	}
}
