package gputest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// reduceValues combines the prologue values of one output like op.
func reduceValues(op device.ReduceOp, vs []float64) float64 {
	switch op {
	case device.ReduceSum:
		s := 0.0
		for _, v := range vs {
			s += v
		}
		return s
	case device.ReduceProd:
		p := 1.0
		for _, v := range vs {
			p *= v
		}
		return p
	}
	best := -1
	for i, v := range vs {
		switch {
		case best < 0:
			best = i
		case math.IsNaN(vs[best]):
		case math.IsNaN(v):
			best = i
		case (op == device.ReduceMax || op == device.ReduceArgMax) && v > vs[best]:
			best = i
		case (op == device.ReduceMin || op == device.ReduceArgMin) && v < vs[best]:
			best = i
		}
	}
	if op == device.ReduceArgMax || op == device.ReduceArgMin {
		return float64(best)
	}
	return vs[best]
}

// reduceCase runs one reduction and checks it against the reference.
type reduceCase struct {
	op        device.ReduceOp
	out, red  []int
	in        []Tensor // views of out ++ red
	prologue  device.Program
	epiIn     []Tensor // views of out
	epilogue  device.Program
	outTypes  []device.DType
	tolerance Tol
}

func (c reduceCase) run(t *testing.T, d device.Device, what string) {
	t.Helper()
	o, r := device.NumElements(c.out), device.NumElements(c.red)
	k := &device.ReduceKernel{Op: c.op, OutShape: c.out, RedShape: c.red, Prologue: c.prologue, Epilogue: c.epilogue}
	for _, x := range c.in {
		k.Inputs = append(k.Inputs, x.View)
	}
	for _, x := range c.epiIn {
		k.EpilogueInputs = append(k.EpilogueInputs, x.View)
	}
	for j, dt := range c.outTypes {
		k.Outputs = append(k.Outputs, Output(t, d, dt, j+1, c.out))
	}
	require.NoError(t, d.Reduce(k), what)
	want := make([][]float64, len(c.outTypes))
	vals := make([]float64, r)
	for oi := 0; oi < o; oi++ {
		for ri := range vals {
			p := oi*r + ri
			vals[ri] = EvalProgram(c.prologue, p, func(i int) float64 { return c.in[i].Values[p] })[0]
		}
		acc := reduceValues(c.op, vals)
		if c.op != device.ReduceArgMax && c.op != device.ReduceArgMin {
			acc = float64(float32(acc))
		}
		res := EvalProgram(c.epilogue, oi, func(i int) float64 {
			if i == 0 {
				return acc
			}
			return c.epiIn[i-1].Values[oi]
		})
		for j, v := range res {
			want[j] = append(want[j], v)
		}
	}
	for j, ov := range k.Outputs {
		w := Decode(ov.DType, Encode(ov.DType, want[j]))
		Check(t, fmt.Sprintf("%s: output %d", what, j), Fetch(t, d, ov), w, c.tolerance)
	}
}

func testReduce(t *testing.T, d device.Device) {
	rng := NewRand(t)
	f32, f16, i32 := device.Float32, device.Float16, device.Int32
	shapes := []struct{ out, red []int }{
		{[]int{7}, []int{1027}}, // a workgroup per output
		{[]int{2000}, []int{5}}, // an invocation per output
		{[]int{3, 4}, []int{5, 6}},
		{[]int{}, []int{513}},
		{[]int{1}, []int{1}},
	}
	ops := []device.ReduceOp{device.ReduceSum, device.ReduceProd, device.ReduceMax, device.ReduceMin, device.ReduceArgMax, device.ReduceArgMin}
	for _, sh := range shapes {
		full := slices.Concat(sh.out, sh.red)
		r := device.NumElements(sh.red)
		for _, op := range ops {
			for _, l := range []Layout{Contiguous, Reversed} {
				gen := WithSpecials(Normal(f32))
				if op == device.ReduceSum || op == device.ReduceProd {
					gen = func(r *rand.Rand) float64 { return 0.5 + r.Float64() }
				}
				x := Make(t, d, rng, f32, full, l, gen)
				c := reduceCase{op: op, out: sh.out, red: sh.red, in: []Tensor{x}, prologue: device.Identity(f32),
					tolerance: Tol{Abs: 1e-6, Rel: 2e-7 * float64(r+4)}}
				var e device.Builder
				switch op {
				case device.ReduceArgMax, device.ReduceArgMin:
					a := e.Input(0, i32)
					e.Output(a)
					e.Output(e.Cast(a, f32))
					c.outTypes = []device.DType{i32, f32}
				default:
					bias := Make(t, d, rng, f32, sh.out, Broadcast, Normal(f32))
					c.epiIn = []Tensor{bias}
					e.Output(e.Binary(device.OpAdd, e.Input(0, f32), e.Input(1, f32)))
					c.outTypes = []device.DType{f32}
				}
				c.epilogue = e.P
				c.run(t, d, fmt.Sprintf("%s over %v of %v (%s)", op, sh.red, full, l))
			}
		}
	}
	{ // a fused prologue over f16 and a mean epilogue written as f16
		full := []int{6, 33, 17}
		x := Make(t, d, rng, f16, full, Reversed, Normal(f16))
		y := Make(t, d, rng, f32, full, Broadcast, Normal(f32))
		var p device.Builder
		p.Output(p.Binary(device.OpMul, p.Input(0, f16), p.Input(1, f32)))
		var e device.Builder
		e.Output(e.Binary(device.OpMul, e.Input(0, f32), e.Const(1.0/(33*17), f32)))
		reduceCase{op: device.ReduceSum, out: []int{6}, red: []int{33, 17}, in: []Tensor{x, y}, prologue: p.P,
			epilogue: e.P, outTypes: []device.DType{f16}, tolerance: Tol{Abs: 1e-3, Rel: 1e-3}}.run(t, d, "mean of x*y to f16")
	}
	for _, dt := range []device.DType{device.Uint8, device.Int8} { // byte inputs, a byte result
		full := []int{5, 37}
		x := Make(t, d, rng, dt, full, Reversed, Normal(dt))
		var p device.Builder
		p.Output(p.Cast(p.Input(0, dt), f32))
		var e device.Builder
		v := e.Cast(e.Input(0, f32), dt)
		e.Output(v)
		e.Output(v)
		for _, op := range []device.ReduceOp{device.ReduceSum, device.ReduceMax, device.ReduceMin} {
			reduceCase{op: op, out: []int{5}, red: []int{37}, in: []Tensor{x}, prologue: p.P,
				epilogue: e.P, outTypes: []device.DType{dt, i32}}.run(t, d, fmt.Sprintf("%s of %s", op, dt))
		}
	}
	for _, op := range []device.ReduceOp{device.ReduceSum, device.ReduceProd} { // empty reductions
		x := Make(t, d, rng, f32, []int{4, 0}, Contiguous, Normal(f32))
		reduceCase{op: op, out: []int{4}, red: []int{0}, in: []Tensor{x}, prologue: device.Identity(f32),
			epilogue: device.Identity(f32), outTypes: []device.DType{f32}}.run(t, d, op.String()+" over nothing")
	}
}
