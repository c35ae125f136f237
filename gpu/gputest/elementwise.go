package gputest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// RunProgram runs prog as an elementwise kernel over shape with the given
// inputs, into fresh outputs of the given dtypes (at odd offsets), and
// checks every output against EvalProgram. Outputs are split over several
// kernels when the device cannot bind every buffer at once.
func RunProgram(t testing.TB, d device.Device, what string, prog device.Program, shape []int, inputs []Tensor, outTypes []device.DType, tl Tol) {
	t.Helper()
	per := max(1, d.Info().Limits.MaxBuffersPerKernel-len(inputs))
	for lo := 0; lo < len(outTypes); lo += per {
		hi := min(lo+per, len(outTypes))
		part := prog
		part.Outputs = prog.Outputs[lo:hi]
		runProgram(t, d, fmt.Sprintf("%s (outputs %d..%d)", what, lo, hi-1), part, shape, inputs, outTypes[lo:hi], tl)
	}
}

func runProgram(t testing.TB, d device.Device, what string, prog device.Program, shape []int, inputs []Tensor, outTypes []device.DType, tl Tol) {
	t.Helper()
	ins := make([]device.View, len(inputs))
	for i, x := range inputs {
		ins[i] = x.View
	}
	outs := make([]device.View, len(outTypes))
	for j, dt := range outTypes {
		outs[j] = Output(t, d, dt, 2*j+1, shape)
	}
	require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: shape, Inputs: ins, Program: prog, Outputs: outs}), what)
	n := device.NumElements(shape)
	want := make([][]float64, len(outs))
	for p := 0; p < n; p++ {
		res := EvalProgram(prog, p, func(k int) float64 { return inputs[k].Values[p] })
		for j, v := range res {
			want[j] = append(want[j], v)
		}
	}
	for j, o := range outs {
		w := Decode(o.DType, Encode(o.DType, want[j]))
		Check(t, fmt.Sprintf("%s: output %d (%s)", what, j, o.DType), Fetch(t, d, o), w, tl)
	}
}

// unaryTol is the tolerance of each float unary op against Go's float64
// math rounded to float32 (GPU transcendentals are a few ulp off).
func unaryTol(op device.Op) Tol {
	switch op {
	case device.OpNeg, device.OpAbs, device.OpSign, device.OpRelu, device.OpFloor, device.OpCeil,
		device.OpRoundF16, device.OpRoundBF16, device.OpRound, device.OpTrunc:
		return Exact
	case device.OpRecip, device.OpSqrt:
		return Tol{Rel: 3e-7}
	}
	return Tol{Abs: 2e-6, Rel: 1e-5}
}

func testElementwiseOps(t *testing.T, d device.Device) {
	r := NewRand(t)
	shape := []int{37, 41}
	f32, i32, bl := device.Float32, device.Int32, device.Bool
	x := Make(t, d, r, f32, shape, Contiguous, WithSpecials(Normal(f32)))
	y := Make(t, d, r, f32, shape, Reversed, WithSpecials(Normal(f32)))
	small := Make(t, d, r, f32, shape, Offset, Normal(f32)) // sin/cos: no huge arguments
	xi := Make(t, d, r, i32, shape, Offset, Normal(i32))
	yi := Make(t, d, r, i32, shape, Broadcast, Normal(i32))
	c := Make(t, d, r, bl, shape, Strided, Normal(bl))
	c2 := Make(t, d, r, bl, shape, Contiguous, Normal(bl))

	for op := device.OpNeg; op <= device.OpTrunc; op++ {
		in := x
		if op == device.OpSin || op == device.OpCos {
			in = small
		}
		var b device.Builder
		b.Output(b.Unary(op, b.Input(0, f32)))
		RunProgram(t, d, "float "+op.String(), b.P, shape, []Tensor{in}, []device.DType{f32}, unaryTol(op))
	}
	for _, op := range []device.Op{device.OpNeg, device.OpAbs, device.OpSign} {
		var b device.Builder
		b.Output(b.Unary(op, b.Input(0, i32)))
		RunProgram(t, d, "int "+op.String(), b.P, shape, []Tensor{xi}, []device.DType{i32}, Exact)
	}
	for op := device.OpAdd; op <= device.OpGe; op++ {
		var b device.Builder
		b.Output(b.Binary(op, b.Input(0, f32), b.Input(1, f32)))
		tl := Exact
		switch op {
		case device.OpPow:
			tl = Tol{Abs: 1e-6, Rel: 2e-5}
		case device.OpAtan2:
			tl = Tol{Abs: 1e-6, Rel: 1e-5}
		}
		RunProgram(t, d, "float "+op.String(), b.P, shape, []Tensor{x, y}, []device.DType{b.TypeOf(b.P.Outputs[0])}, tl)
		if op.Info().Types == device.TypesFloat { // pow, atan2, fmod: no int32 form
			continue
		}
		var bi device.Builder
		bi.Output(bi.Binary(op, bi.Input(0, i32), bi.Input(1, i32)))
		RunProgram(t, d, "int "+op.String(), bi.P, shape, []Tensor{xi, yi}, []device.DType{bi.TypeOf(bi.P.Outputs[0])}, Exact)
	}
	{ // bool ops, where, fma, isnan, index, casts
		var b device.Builder
		p, q := b.Input(0, bl), b.Input(1, bl)
		fx, fy, ix := b.Input(2, f32), b.Input(3, f32), b.Input(4, i32)
		b.Output(b.Binary(device.OpAnd, p, q))
		b.Output(b.Binary(device.OpOr, p, b.Unary(device.OpNot, q)))
		b.Output(b.Where(p, fx, fy))
		b.Output(b.Where(q, ix, b.Const(-7, i32)))
		b.Output(b.Fma(fx, fy, b.Const(0.5, f32)))
		b.Output(b.Unary(device.OpIsNaN, fx))
		b.Output(b.Binary(device.OpAdd, b.Index(), ix))
		b.Output(b.Cast(fx, i32))
		b.Output(b.Cast(ix, f32))
		b.Output(b.Cast(p, f32))
		b.Output(b.Cast(p, i32))
		b.Output(b.Cast(fx, bl))
		b.Output(b.Cast(ix, bl))
		b.Output(b.Const(1e30, f32))
		outs := []device.DType{bl, bl, f32, i32, f32, bl, i32, i32, f32, f32, i32, bl, bl, f32}
		// fma need not be fused on a GPU: an absolute tolerance covers cancellation.
		RunProgram(t, d, "bool, where, fma, isnan, index, casts", b.P, shape, []Tensor{c, c2, x, y, xi}, outs, Tol{Abs: 1e-6, Rel: 1e-6})
	}
	{ // constants that are zero, infinite or NaN keep IEEE semantics (the
		// driver may still simplify x-x to 0: Vulkan allows that)
		var b device.Builder
		fx := b.Input(0, f32)
		zero, inf, nan := b.Const(0, f32), b.Const(math.Inf(1), f32), b.Const(math.NaN(), f32)
		b.Output(b.Binary(device.OpDiv, fx, zero))
		b.Output(b.Binary(device.OpMul, fx, zero))
		b.Output(b.Binary(device.OpMul, fx, inf))
		b.Output(b.Binary(device.OpAdd, fx, nan))
		b.Output(b.Binary(device.OpMax, fx, nan))
		b.Output(b.Binary(device.OpDiv, zero, zero))
		outs := []device.DType{f32, f32, f32, f32, f32, f32}
		RunProgram(t, d, "IEEE constants", b.P, shape, []Tensor{x}, outs, Exact)
	}
	{ // saturating casts of large values
		big := Make(t, d, r, f32, shape, Contiguous, func(r *rand.Rand) float64 { return (r.Float64() - 0.5) * 1e10 })
		var b device.Builder
		b.Output(b.Cast(b.Input(0, f32), i32))
		RunProgram(t, d, "saturating cast", b.P, shape, []Tensor{big}, []device.DType{i32}, Exact)
	}
	{ // random numbers: uniform ones are bit-identical to device.Uniform;
		// normal ones agree with device.Normal within device.NormalTolerance
		// (the GPU's log, sqrt and cos), over enough positions to meet
		// values near zero, where the GPU's relative error is largest.
		shape := []int{1 << 10, 1 << 8}
		var u, n device.Builder
		u.Output(u.Rand(12345, false))
		n.Output(n.Rand(1<<40+7, true))
		RunProgram(t, d, "rand uniform", u.P, shape, nil, []device.DType{f32}, Exact)
		RunProgram(t, d, "rand normal", n.P, shape, nil, []device.DType{f32}, Tol{Abs: device.NormalTolerance})
	}
}

func testElementwiseDTypes(t *testing.T, d device.Device) {
	r := NewRand(t)
	f32, f16, bf16, i32, bl := device.Float32, device.Float16, device.BFloat16, device.Int32, device.Bool
	for _, shape := range [][]int{{3, 5, 7}, {1}, {2, 1, 9}, {5, 4, 3, 2, 3}} {
		for _, l := range Layouts {
			h := Make(t, d, r, f16, shape, l, WithSpecials(Normal(f16)))
			bh := Make(t, d, r, bf16, shape, (l+1)%5, WithSpecials(Normal(bf16)))
			c := Make(t, d, r, bl, shape, (l+2)%5, Normal(bl))
			iv := Make(t, d, r, i32, shape, (l+3)%5, Normal(i32))
			var b device.Builder
			hv, bv := b.Input(0, f16), b.Input(1, bf16)
			cv, ivv := b.Input(2, bl), b.Input(3, i32)
			sum := b.Binary(device.OpAdd, hv, bv)
			b.Output(sum)
			b.Output(b.Binary(device.OpMul, hv, b.Const(3, f32)))
			b.Output(b.Where(cv, bv, b.Unary(device.OpNeg, hv)))
			b.Output(b.Unary(device.OpNot, cv))
			b.Output(b.Binary(device.OpGt, sum, b.Const(0, f32)))
			b.Output(ivv)
			outs := []device.DType{f32, f16, bf16, bl, bl, i32}
			RunProgram(t, d, fmt.Sprintf("dtypes %v %s", shape, l), b.P, shape, []Tensor{h, bh, c, iv}, outs, Exact)
		}
	}
}

// testElementwiseBytes runs programs over Uint8 and Int8 views (loaded as
// Int32, zero- and sign-extended) in every layout, with outputs of both
// types at odd offsets, so that neighbouring invocations store into the
// same word: wrapping arithmetic, stores of out-of-range Int32 values (the
// low byte) and float casts with NaN, infinities and values past the int32
// range (saturating at int32, then the low byte).
func testElementwiseBytes(t *testing.T, d device.Device) {
	r := NewRand(t)
	f32, i32, bl, u8, i8 := device.Float32, device.Int32, device.Bool, device.Uint8, device.Int8
	wide := WithSpecials(func(r *rand.Rand) float64 {
		return r.NormFloat64() * []float64{1, 200, 1e5, 3e9}[r.IntN(4)]
	})
	anyInt := func(r *rand.Rand) float64 { return float64(int32(r.Uint32())) }
	for _, shape := range [][]int{{3, 5, 7}, {1}, {2, 1, 9}, {5, 4, 3, 2, 3}} {
		for _, l := range Layouts {
			ub := Make(t, d, r, u8, shape, l, Normal(u8))
			sb := Make(t, d, r, i8, shape, (l+1)%5, Normal(i8))
			fv := Make(t, d, r, f32, shape, (l+2)%5, wide)
			iv := Make(t, d, r, i32, shape, (l+3)%5, anyInt)
			var b device.Builder
			u, s, f, i := b.Input(0, u8), b.Input(1, i8), b.Input(2, f32), b.Input(3, i32)
			sum := b.Binary(device.OpAdd, u, s)
			b.Output(sum)
			b.Output(sum)
			b.Output(sum)
			b.Output(b.Binary(device.OpMul, u, s))
			b.Output(b.Cast(f, u8))
			b.Output(b.Cast(f, i8))
			b.Output(i)
			b.Output(i)
			b.Output(b.Binary(device.OpLt, u, s))
			b.Output(b.Cast(s, f32))
			b.Output(b.Binary(device.OpDiv, s, b.Const(-3, i32)))
			outs := []device.DType{u8, i8, i32, u8, u8, i8, u8, i8, bl, f32, i8}
			RunProgram(t, d, fmt.Sprintf("bytes %v %s", shape, l), b.P, shape, []Tensor{ub, sb, fv, iv}, outs, Exact)
		}
	}
}

func testElementwiseLarge(t *testing.T, d device.Device) {
	r := NewRand(t)
	f32 := device.Float32
	shape := []int{513, 1027}
	x := Make(t, d, r, f32, shape, Contiguous, Normal(f32))
	bias := Make(t, d, r, f32, []int{1, 1027}, Contiguous, Normal(f32))
	bias.View.Shape, bias.View.Strides = shape, []int{0, 1}
	vals := make([]float64, 513*1027)
	for p := range vals {
		vals[p] = bias.Values[p%1027]
	}
	bias.Values = vals
	var b device.Builder
	b.Output(b.Unary(device.OpRelu, b.Binary(device.OpAdd, b.Input(0, f32), b.Input(1, f32))))
	RunProgram(t, d, "relu(x+bias) 513x1027", b.P, shape, []Tensor{x, bias}, []device.DType{f32}, Exact)
}
