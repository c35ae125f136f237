package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// randomChain returns a chain program over nIn float32 inputs: each
// instruction combines the previous result with an input or a constant
// (in either order) or applies a unary op, and some results are outputs.
// With odd set, one instruction may be an op the fused machine lacks.
func randomChain(r *rand.Rand, nIn int, odd bool) device.Program {
	var b device.Builder
	var ins []device.Reg
	for i := range nIn {
		ins = append(ins, b.Input(i, device.Float32))
	}
	unary := []device.Op{device.OpNeg, device.OpAbs, device.OpRelu, device.OpSqrt, device.OpRsqrt, device.OpRecip,
		device.OpExp, device.OpTanh, device.OpSigmoid}
	binary := []device.Op{device.OpAdd, device.OpSub, device.OpMul, device.OpDiv, device.OpMax, device.OpMin}
	operand := func() device.Reg {
		if r.IntN(3) == 0 {
			return b.Const(float64(float32(r.NormFloat64()*3)), device.Float32)
		}
		return ins[r.IntN(nIn)]
	}
	acc := ins[0]
	outs := 0
	for k := range 1 + r.IntN(7) { // a single op runs as its own kernel, not on the machine
		switch {
		case odd && k == 1:
			acc = b.Unary(device.OpSin, acc)
		case r.IntN(6) == 0: // ReLU's gradient, the accumulator as the value or as the test
			m, v := operand(), acc
			if r.IntN(2) == 0 {
				m, v = v, m
			}
			acc = b.Where(b.Binary(device.OpGt, m, b.Const(0, device.Float32)), v, b.Const(0, device.Float32))
		case r.IntN(3) == 0:
			acc = b.Unary(unary[r.IntN(len(unary))], acc)
		case r.IntN(2) == 0:
			acc = b.Binary(binary[r.IntN(len(binary))], acc, operand())
		default:
			acc = b.Binary(binary[r.IntN(len(binary))], operand(), acc)
		}
		if r.IntN(3) == 0 && outs < 2 {
			b.Output(acc)
			outs++
		}
	}
	b.Output(acc)
	return b.P
}

// TestFusedChainsMatchInterpreter runs random chains with the fused
// machine and without it (the interpreter with the same SIMD kernels) and
// requires identical bits, for lengths around the block size, several
// workers, a uniform (broadcast scalar) input, unaligned outputs and both
// cached and streaming stores; it also checks that the chains did run on
// the machine.
func TestFusedChainsMatchInterpreter(t *testing.T) {
	if !vec.FusedAvailable() {
		t.Skip("no fused machine at this level")
	}
	r := newRand(t)
	defer func(v int) { streamMinBytes = v }(streamMinBytes)
	fusedRuns := 0
	for trial := range 120 {
		streamMinBytes = []int{0, math.MaxInt}[r.IntN(2)]
		n := []int{1, 63, 64, 65, 1000, 4096, 20000 + r.IntN(5000)}[r.IntN(7)]
		d := newDevice(t, 1+r.IntN(3))
		nIn := 1 + r.IntN(3)
		odd := r.IntN(6) == 0
		p := randomChain(r, nIn, odd)
		var inputs []device.View
		for i := range nIn {
			vals := randVals(r, n)
			for j := range vals {
				if r.IntN(50) == 0 {
					vals[j] = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -1e30}[r.IntN(5)]
				}
			}
			v := device.Contiguous(upload(t, d, device.Float32, vals), device.Float32, 0, []int{n})
			if i > 0 && r.IntN(4) == 0 { // a broadcast scalar
				v = device.View{Buf: v.Buf, DType: device.Float32, Offset: r.IntN(n), Shape: []int{n}, Strides: []int{0}}
			}
			inputs = append(inputs, v)
		}
		run := func(fused bool) [][]float64 {
			useFused = fused
			defer func() { useFused = true }()
			var outs []device.View
			for range p.Outputs {
				off := []int{0, 0, 3}[r.IntN(3)] // an unaligned output now and then
				outs = append(outs, device.Contiguous(poisoned(t, d, device.Float32, n+off), device.Float32, off, []int{n}))
			}
			k := &device.ElementwiseKernel{Shape: []int{n}, Inputs: inputs, Program: p, Outputs: outs}
			require.NoError(t, ran(d, d.Elementwise(k)))
			if fused && d.plans[0].fused {
				fusedRuns++
			}
			var got [][]float64
			for _, o := range outs {
				got = append(got, download(t, d, o.Buf, device.Float32, n+o.Offset)[o.Offset:])
			}
			return got
		}
		want, got := run(false), run(true)
		for j := range want {
			for i := range want[j] {
				w, g := want[j][i], got[j][i]
				if w != g && !(math.IsNaN(w) && math.IsNaN(g)) {
					require.Failf(t, "mismatch", "trial %d, n %d, output %d at %d: fused %v, interpreter %v\n%s", trial, n, j, i, g, w, p)
				}
			}
		}
	}
	// About 37 of the 120 random chains run fused (sd 4.5 over 150 runs,
	// 23-49); a bound of 25 failed CI once. None do when the fused machine
	// is never chosen, which is what this guards.
	require.Greater(t, fusedRuns, 10, "chains of two ops or more run on the fused machine")
}

// TestMomentumUpdateRunsFused builds SGD's momentum update as the optimizer
// writes it, buf' = buf·μ + g·(1 − dampening) and p' = p − lr·buf', with no
// dampening, and requires it to run on the fused machine: scaling g by one
// must not break the chain (it did, and the update ran on the interpreter).
func TestMomentumUpdateRunsFused(t *testing.T) {
	if !vec.FusedAvailable() {
		t.Skip("no fused machine at this level")
	}
	var b device.Builder
	p, g, buf := b.Input(0, device.Float32), b.Input(1, device.Float32), b.Input(2, device.Float32)
	nb := b.Binary(device.OpAdd, b.Binary(device.OpMul, buf, b.Const(0.9, device.Float32)),
		b.Binary(device.OpMul, g, b.Const(1, device.Float32)))
	np := b.Binary(device.OpSub, p, b.Binary(device.OpMul, nb, b.Const(0.05, device.Float32)))
	b.Output(nb)
	b.Output(np)
	const n = 4096
	d := newDevice(t, 1)
	r := newRand(t)
	var inputs, outs []device.View
	vals := make([][]float64, 3)
	for i := range vals {
		vals[i] = randVals(r, n)
		inputs = append(inputs, device.Contiguous(upload(t, d, device.Float32, vals[i]), device.Float32, 0, []int{n}))
	}
	for range 2 {
		outs = append(outs, device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, []int{n}))
	}
	require.NoError(t, ran(d, d.Elementwise(&device.ElementwiseKernel{Shape: []int{n}, Inputs: inputs, Program: b.P, Outputs: outs})))
	require.True(t, d.plans[0].fused, "the momentum update runs on the fused machine\n%s", b.P)
	gotBuf, gotP := download(t, d, outs[0].Buf, device.Float32, n), download(t, d, outs[1].Buf, device.Float32, n)
	for i := range n {
		wb := float32(float32(vals[2][i])*0.9) + float32(vals[1][i])
		wp := float32(vals[0][i]) - float32(wb*0.05)
		if float64(wb) != gotBuf[i] {
			require.Equal(t, float64(wb), gotBuf[i], "buf at %d", i)
		}
		if float64(wp) != gotP[i] {
			require.Equal(t, float64(wp), gotP[i], "p at %d", i)
		}
	}
}

// TestReluGradientRunsFused: Where(m > 0, v, +0), ReLU's gradient, runs on
// the fused machine whether the accumulator is the value, the test or
// neither, and gives the interpreter's bits for NaN, ±0, ±Inf and
// subnormal tests and values, on the AVX2 machine and (with a
// transcendental) the AVX-512 one; a test read by anything else, a zero of
// the wrong sign and m == v stay on the interpreter.
func TestReluGradientRunsFused(t *testing.T) {
	if !vec.FusedAvailable() {
		t.Skip("no fused machine at this level")
	}
	const n = 1000
	special := []float64{math.NaN(), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1e-40, -1e-40, 1, -1}
	type build func(b *device.Builder, m, v device.Reg) device.Reg
	zero := func(b *device.Builder) device.Reg { return b.Const(0, device.Float32) }
	gt0 := func(b *device.Builder, m device.Reg) device.Reg { return b.Binary(device.OpGt, m, zero(b)) }
	cases := []struct {
		name  string
		fused bool
		build build
	}{
		{"inputs", true, func(b *device.Builder, m, v device.Reg) device.Reg { return b.Where(gt0(b, m), v, zero(b)) }},
		{"value in the accumulator", true, func(b *device.Builder, m, v device.Reg) device.Reg {
			return b.Where(gt0(b, m), b.Unary(device.OpNeg, v), zero(b))
		}},
		{"test in the accumulator", true, func(b *device.Builder, m, v device.Reg) device.Reg {
			return b.Binary(device.OpMul, b.Where(gt0(b, b.Unary(device.OpAbs, m)), v, zero(b)), b.Const(3, device.Float32))
		}},
		{"on the AVX-512 machine (exp)", vec.FusedHas(vec.FusedExp), func(b *device.Builder, m, v device.Reg) device.Reg {
			x := b.Where(gt0(b, m), b.Unary(device.OpExp, v), zero(b))
			return b.Where(gt0(b, b.Binary(device.OpSub, b.Unary(device.OpNeg, x), b.Const(-1, device.Float32))), m, zero(b))
		}},
		{"test before the value's chain", true, func(b *device.Builder, m, v device.Reg) device.Reg {
			c := gt0(b, m)
			return b.Where(c, b.Binary(device.OpAdd, b.Unary(device.OpNeg, v), b.Const(1, device.Float32)), zero(b))
		}},
		{"negative zero", false, func(b *device.Builder, m, v device.Reg) device.Reg {
			return b.Where(gt0(b, m), b.Unary(device.OpNeg, v), b.Const(math.Copysign(0, -1), device.Float32))
		}},
		{"test read twice", false, func(b *device.Builder, m, v device.Reg) device.Reg {
			c := gt0(b, m)
			return b.Where(c, b.Where(c, b.Unary(device.OpNeg, v), zero(b)), zero(b))
		}},
		{"m is v", false, func(b *device.Builder, m, v device.Reg) device.Reg {
			x := b.Unary(device.OpNeg, v)
			return b.Binary(device.OpAdd, b.Where(gt0(b, x), x, zero(b)), m)
		}},
	}
	r := newRand(t)
	d := newDevice(t, 2)
	for _, c := range cases {
		var b device.Builder
		b.Output(c.build(&b, b.Input(0, device.Float32), b.Input(1, device.Float32)))
		var inputs []device.View
		for range 2 {
			vals := randVals(r, n)
			for i := range vals {
				if r.IntN(4) == 0 {
					vals[i] = special[r.IntN(len(special))]
				}
			}
			inputs = append(inputs, device.Contiguous(upload(t, d, device.Float32, vals), device.Float32, 0, []int{n}))
		}
		run := func(fused bool) []float64 {
			useFused = fused
			defer func() { useFused = true }()
			out := device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, []int{n})
			require.NoError(t, ran(d, d.Elementwise(&device.ElementwiseKernel{Shape: []int{n}, Inputs: inputs, Program: b.P, Outputs: []device.View{out}})))
			require.Equal(t, fused && c.fused, d.plans[0].fused, "%s: on the fused machine\n%s", c.name, b.P)
			return download(t, d, out.Buf, device.Float32, n)
		}
		want, got := run(false), run(true)
		for i := range want {
			if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
				require.Equal(t, math.Float64bits(want[i]), math.Float64bits(got[i]), "%s at %d: fused %v, interpreter %v", c.name, i, got[i], want[i])
			}
		}
	}
}
