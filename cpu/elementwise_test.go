package cpu

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// specials are values every float op is also checked on.
var specials = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, math.NaN(), math.Inf(1), math.Inf(-1), 1e-30, -88.5, 89, 1e20}

// unaryProgram returns out0 = op(in0) for an input of type t.
func unaryProgram(op device.Op, t device.DType) device.Program {
	var b device.Builder
	b.Output(b.Unary(op, b.Input(0, t)))
	return b.P
}

func TestElementwiseUnaryMatchesDevice(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	shape := []int{7, 301}
	n := device.NumElements(shape)
	x := randVals(r, n)
	for i := range x {
		x[i] *= 3
	}
	copy(x, specials)
	in := device.Contiguous(upload(t, d, device.Float32, x), device.Float32, 0, shape)
	for op := device.OpNeg; op <= device.OpCeil; op++ {
		if op == device.OpIsNaN || op == device.OpNot || op == device.OpCast {
			continue
		}
		out := poisoned(t, d, device.Float32, n)
		k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{in}, Program: unaryProgram(op, device.Float32),
			Outputs: []device.View{device.Contiguous(out, device.Float32, 0, shape)}}
		require.NoError(t, d.Elementwise(k), op)
		got := download(t, d, out, device.Float32, n)
		for i := range x {
			want := float64(device.UnaryF32(op, float32(x[i])))
			if math.IsNaN(want) {
				require.True(t, math.IsNaN(got[i]), "%s(%v) = %v, want NaN", op, x[i], got[i])
				continue
			}
			require.True(t, unaryClose(op, float32(x[i]), float32(got[i])), "%s(%v) = %v, want about %v", op, x[i], got[i], want)
		}
	}
	// Integer unary ops.
	xi := make([]float64, n)
	for i := range xi {
		xi[i] = float64(r.IntN(201) - 100)
	}
	ini := device.Contiguous(upload(t, d, device.Int32, xi), device.Int32, 0, shape)
	for _, op := range []device.Op{device.OpNeg, device.OpAbs, device.OpSign} {
		out := poisoned(t, d, device.Int32, n)
		k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{ini}, Program: unaryProgram(op, device.Int32),
			Outputs: []device.View{device.Contiguous(out, device.Int32, 0, shape)}}
		require.NoError(t, d.Elementwise(k), op)
		got := download(t, d, out, device.Int32, n)
		for i := range xi {
			require.Equal(t, float64(device.UnaryI32(op, int32(xi[i]))), got[i], "%s(%v)", op, xi[i])
		}
	}
}

func TestElementwiseBinaryBroadcastAndTransposed(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	shape := []int{5, 3, 67}
	n := device.NumElements(shape)
	for _, dt := range []device.DType{device.Float32, device.Int32} {
		// a broadcasts along dimension 1; b is stored transposed with an offset.
		a, av := strided(t, d, r, dt, []int{5, 1, 67}, []int{0, 1, 2}, 0)
		a.Shape, a.Strides = shape, []int{a.Strides[0], 0, a.Strides[2]}
		b, bv := strided(t, d, r, dt, shape, []int{2, 0, 1}, 3)
		if dt == device.Float32 {
			copy(bv[3:], specials) // NaN, infinities and zeros against random values
			require.NoError(t, d.Write(b.Buf, 0, encode(dt, bv)))
		} else {
			bv[3+5], bv[3+9] = 0, 0 // integer division by zero yields zero
			require.NoError(t, d.Write(b.Buf, 0, encode(dt, bv)))
		}
		ops := []device.Op{device.OpAdd, device.OpSub, device.OpMul, device.OpDiv, device.OpMax, device.OpMin}
		if dt == device.Float32 {
			ops = append(ops, device.OpPow)
		}
		for _, op := range ops {
			var pb device.Builder
			pb.Output(pb.Binary(op, pb.Input(0, dt), pb.Input(1, dt)))
			out := poisoned(t, d, dt, n)
			k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{a, b}, Program: pb.P,
				Outputs: []device.View{device.Contiguous(out, dt, 0, shape)}}
			require.NoError(t, d.Elementwise(k), "%s %s", dt, op)
			got := download(t, d, out, dt, n)
			for p := 0; p < n; p++ {
				x, y := at(av, a, p), at(bv, b, p)
				var want float64
				if dt == device.Float32 {
					want = float64(device.BinaryF32(op, float32(x), float32(y)))
				} else {
					want = float64(device.BinaryI32(op, int32(x), int32(y)))
				}
				if math.IsNaN(want) {
					require.True(t, math.IsNaN(got[p]), "%s %s(%v, %v) = %v", dt, op, x, y, got[p])
				} else {
					if want != got[p] {
						require.Equal(t, want, got[p], "%s %s(%v, %v) at %d", dt, op, x, y, p)
					}
				}
			}
		}
		for op := device.OpEq; op <= device.OpGe; op++ {
			var pb device.Builder
			pb.Output(pb.Binary(op, pb.Input(0, dt), pb.Input(1, dt)))
			out := poisoned(t, d, device.Bool, n)
			k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{a, b}, Program: pb.P,
				Outputs: []device.View{device.Contiguous(out, device.Bool, 0, shape)}}
			require.NoError(t, d.Elementwise(k))
			got := download(t, d, out, device.Bool, n)
			for p := 0; p < n; p++ {
				x, y := at(av, a, p), at(bv, b, p)
				var want bool
				if dt == device.Float32 {
					want = device.Compare(op, float32(x), float32(y))
				} else {
					want = device.Compare(op, int32(x), int32(y))
				}
				if b2f(want) != got[p] {
					require.Equal(t, b2f(want), got[p], "%s %s(%v, %v)", dt, op, x, y)
				}
			}
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func TestElementwiseDTypesLoadsAndStores(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	shape := []int{4, 9, 33}
	n := device.NumElements(shape)
	h, hv := strided(t, d, r, device.Float16, shape, []int{1, 2, 0}, 1)
	bf, bfv := strided(t, d, r, device.BFloat16, shape, []int{0, 1, 2}, 2)
	iv, ivv := strided(t, d, r, device.Int32, shape, []int{2, 1, 0}, 0)
	m, mv := strided(t, d, r, device.Bool, shape, []int{0, 2, 1}, 5)
	// Bool buffers holding other non-zero bytes load as true.
	mv[5] = 7
	raw := encode(device.Bool, mv)
	raw[5] = 7
	require.NoError(t, d.Write(m.Buf, 0, raw))

	var b device.Builder
	x := b.Input(0, device.Float16)
	y := b.Input(1, device.BFloat16)
	i := b.Input(2, device.Int32)
	c := b.Input(3, device.Bool)
	s := b.Binary(device.OpAdd, b.Binary(device.OpMul, x, y), b.Cast(i, device.Float32)) // x*y + float(i)
	b.Output(s)                                                                          // float16
	b.Output(s)                                                                          // bfloat16
	b.Output(b.Cast(s, device.Int32))                                                    // int32
	b.Output(b.Binary(device.OpAnd, b.Binary(device.OpGt, s, b.Const(0, device.Float32)), c))
	b.Output(b.Where(c, b.Cast(c, device.Int32), b.Const(-3, device.Int32)))
	outs := []device.DType{device.Float16, device.BFloat16, device.Int32, device.Bool, device.Int32}
	var views []device.View
	for _, dt := range outs {
		views = append(views, device.Contiguous(poisoned(t, d, dt, n), dt, 0, shape))
	}
	k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{h, bf, iv, m}, Program: b.P, Outputs: views}
	require.NoError(t, d.Elementwise(k))
	got := make([][]float64, len(outs))
	for j, dt := range outs {
		got[j] = download(t, d, views[j].Buf, dt, n)
	}
	for p := 0; p < n; p++ {
		sv := float64(float32(float32(at(hv, h, p))*float32(at(bfv, bf, p))) + float32(at(ivv, iv, p)))
		cond := at(mv, m, p) != 0
		assert.Equal(t, round(device.Float16, sv), got[0][p], "float16 store at %d", p)
		assert.Equal(t, round(device.BFloat16, sv), got[1][p], "bfloat16 store at %d", p)
		assert.Equal(t, float64(device.FloatToInt32(float32(sv))), got[2][p], "int32 cast at %d", p)
		assert.Equal(t, b2f(sv > 0 && cond), got[3][p], "bool at %d", p)
		want := -3.0
		if cond {
			want = 1
		}
		require.Equal(t, want, got[4][p], "where at %d", p)
	}
}

func TestElementwiseCastsAndLogic(t *testing.T) {
	d := newDevice(t, 0)
	x := []float64{0, -0.0, 1.9, -1.9, 3e9, -3e9, math.NaN(), math.Inf(1), 0.25, -7}
	n := len(x)
	shape := []int{n}
	in := device.Contiguous(upload(t, d, device.Float32, x), device.Float32, 0, shape)
	var b device.Builder
	v := b.Input(0, device.Float32)
	toI := b.Cast(v, device.Int32)
	toB := b.Cast(v, device.Bool)
	b.Output(toI)
	b.Output(toB)
	b.Output(b.Cast(toB, device.Float32))
	b.Output(b.Cast(b.Cast(toI, device.Bool), device.Int32))
	b.Output(b.Unary(device.OpNot, b.Unary(device.OpIsNaN, v)))
	b.Output(b.Binary(device.OpOr, b.Unary(device.OpIsNaN, v), b.Binary(device.OpLt, v, b.Const(0, device.Float32))))
	b.Output(b.Cast(toI, device.Float32))
	outs := []device.DType{device.Int32, device.Bool, device.Float32, device.Int32, device.Bool, device.Bool, device.Float32}
	var views []device.View
	for _, dt := range outs {
		views = append(views, device.Contiguous(poisoned(t, d, dt, n), dt, 0, shape))
	}
	require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: shape, Inputs: []device.View{in}, Program: b.P, Outputs: views}))
	for i, xv := range x {
		f := float32(xv)
		iv := device.FloatToInt32(f)
		nz := b2f(f != 0) // NaN is non-zero
		want := []float64{float64(iv), nz, nz, b2f(iv != 0), b2f(f == f), b2f(f != f || f < 0), float64(float32(iv))}
		for j := range outs {
			require.Equal(t, want[j], download(t, d, views[j].Buf, outs[j], n)[i], "output %d of x=%v", j, xv)
		}
	}
}

func TestElementwiseLargeParallelMatchesFloat64(t *testing.T) {
	r := newRand(t)
	for _, workers := range []int{1, 3} {
		d := newDevice(t, workers)
		shape := []int{513, 1027}
		n := device.NumElements(shape)
		a, av := strided(t, d, r, device.Float32, shape, []int{1, 0}, 7)
		bRow, bv := strided(t, d, r, device.Float32, []int{1, 1027}, []int{0, 1}, 0)
		bRow.Shape, bRow.Strides = shape, []int{0, 1}
		c, cv := strided(t, d, r, device.Float32, shape, []int{0, 1}, 0)
		// out0 = tanh(a*b + c) * sigmoid(a) - |c| ; out1 = max(a, c) written as float16
		var pb device.Builder
		x, y, z := pb.Input(0, device.Float32), pb.Input(1, device.Float32), pb.Input(2, device.Float32)
		f := pb.Fma(x, y, z)
		o0 := pb.Binary(device.OpSub, pb.Binary(device.OpMul, pb.Unary(device.OpTanh, f), pb.Unary(device.OpSigmoid, x)), pb.Unary(device.OpAbs, z))
		pb.Output(o0)
		pb.Output(pb.Binary(device.OpMax, x, z))
		out0 := poisoned(t, d, device.Float32, n)
		out1 := poisoned(t, d, device.Float16, n)
		k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{a, bRow, c}, Program: pb.P,
			Outputs: []device.View{device.Contiguous(out0, device.Float32, 0, shape), device.Contiguous(out1, device.Float16, 0, shape)}}
		require.NoError(t, d.Elementwise(k))
		want0, want1 := make([]float64, n), make([]float64, n)
		for p := 0; p < n; p++ {
			xa, yb, zc := at(av, a, p), at(bv, bRow, p), at(cv, c, p)
			want0[p] = math.Tanh(xa*yb+zc)*device.Sigmoid64(xa) - math.Abs(zc)
			want1[p] = round(device.Float16, math.Max(xa, zc))
		}
		requireClose(t, want0, download(t, d, out0, device.Float32, n), 1e-6, 1e-5, "fused program")
		requireClose(t, want1, download(t, d, out1, device.Float16, n), 0, 0, "float16 max")
	}
}

func TestElementwiseRandomAndIndexIndependentOfWorkers(t *testing.T) {
	shape := []int{300, 700}
	n := device.NumElements(shape)
	var b device.Builder
	b.Output(b.Rand(42, false))
	b.Output(b.Rand(42, true))
	b.Output(b.Index())
	var results [][]float64
	for _, workers := range []int{1, 2, 5} {
		d := newDevice(t, workers)
		outs := []device.View{
			device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, shape),
			device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, shape),
			device.Contiguous(poisoned(t, d, device.Int32, n), device.Int32, 0, shape),
		}
		require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: shape, Program: b.P, Outputs: outs}))
		u := download(t, d, outs[0].Buf, device.Float32, n)
		g := download(t, d, outs[1].Buf, device.Float32, n)
		ix := download(t, d, outs[2].Buf, device.Int32, n)
		key := device.StreamKey(42)
		for i := 0; i < n; i += 997 {
			if float64(device.Uniform(key, uint32(i))) != u[i] {
				require.Equal(t, float64(device.Uniform(key, uint32(i))), u[i])
			}
			if float64(device.Normal(key, uint32(i))) != g[i] {
				require.Equal(t, float64(device.Normal(key, uint32(i))), g[i])
			}
			if float64(i) != ix[i] {
				require.Equal(t, float64(i), ix[i])
			}
		}
		results = append(results, append(u, g...))
	}
	require.Equal(t, results[0], results[1])
	require.Equal(t, results[0], results[2])
}

func TestElementwiseInPlaceAndScalars(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	// x = x*x + x, written over its own buffer, for a size crossing chunks.
	n := 3*chunkLen + 17
	xv := randVals(r, n)
	buf := upload(t, d, device.Float32, xv)
	v := device.Contiguous(buf, device.Float32, 0, []int{n})
	var b device.Builder
	x := b.Input(0, device.Float32)
	b.Output(b.Binary(device.OpAdd, b.Binary(device.OpMul, x, x), x))
	b.Output(b.Unary(device.OpNeg, x))
	neg := device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, []int{n})
	require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: []int{n}, Inputs: []device.View{v}, Program: b.P, Outputs: []device.View{v, neg}}))
	got := download(t, d, buf, device.Float32, n)
	gotNeg := download(t, d, neg.Buf, device.Float32, n)
	for i, xx := range xv {
		f := float32(xx)
		require.Equal(t, float64(float32(f*f)+f), got[i]) // Mul then Add: two roundings, never fused
		if float64(-f) != gotNeg[i] {
			require.Equal(t, float64(-f), gotNeg[i])
		}
	}

	// Rank 0: a scalar.
	s := device.View{Buf: upload(t, d, device.Float32, []float64{3}), DType: device.Float32}
	out := device.View{Buf: poisoned(t, d, device.Float32, 1), DType: device.Float32}
	require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Inputs: []device.View{s}, Program: unaryProgram(device.OpSqrt, device.Float32), Outputs: []device.View{out}}))
	require.InDelta(t, math.Sqrt(3), download(t, d, out.Buf, device.Float32, 1)[0], 1e-6)

	// An empty shape runs nothing.
	empty := device.View{Buf: s.Buf, DType: device.Float32, Shape: []int{0, 4}, Strides: []int{4, 1}}
	require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: []int{0, 4}, Inputs: []device.View{empty}, Program: unaryProgram(device.OpNeg, device.Float32), Outputs: []device.View{empty}}))
}

func TestElementwiseLongProgramReusesRegisters(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	n := 5000
	xv := randVals(r, n)
	in := device.Contiguous(upload(t, d, device.Float32, xv), device.Float32, 0, []int{n})
	// Horner evaluation of a degree-40 polynomial, with a dead register per step.
	var b device.Builder
	x := b.Input(0, device.Float32)
	acc := b.Const(1, device.Float32)
	for i := 0; i < 40; i++ {
		b.Unary(device.OpExp, x) // dead
		acc = b.Fma(acc, b.Binary(device.OpMul, x, b.Const(0.5, device.Float32)), b.Const(float64(i%3), device.Float32))
	}
	b.Output(acc)
	out := poisoned(t, d, device.Float32, n)
	p := &d.plans[0]
	require.NoError(t, ran(d, d.Elementwise(&device.ElementwiseKernel{Shape: []int{n}, Inputs: []device.View{in}, Program: b.P,
		Outputs: []device.View{device.Contiguous(out, device.Float32, 0, []int{n})}})))
	assert.LessOrEqual(t, p.nslots[classF32], 5, "dead registers must free their slots")
	got := download(t, d, out, device.Float32, n)
	for i, xx := range xv {
		want := float32(1)
		h := float32(xx) * 0.5
		for j := 0; j < 40; j++ {
			want = want*h + float32(j%3)
		}
		require.InDelta(t, float64(want), got[i], 1e-4*math.Max(1, math.Abs(float64(want))))
	}
}

func TestElementwiseScalarOperands(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	n := 2*chunkLen + 3
	x := randVals(r, n)
	copy(x, specials)
	in := device.Contiguous(upload(t, d, device.Float32, x), device.Float32, 0, []int{n})
	for _, c := range append([]float64{-1.5, 0.75}, specials...) {
		// A scalar held in a buffer and broadcast, and a constant.
		sv := device.View{Buf: upload(t, d, device.Float32, []float64{c}), DType: device.Float32, Shape: []int{n}, Strides: []int{0}}
		for op := device.OpAdd; op <= device.OpMin; op++ {
			var b device.Builder
			xr, cr := b.Input(0, device.Float32), b.Input(1, device.Float32)
			k := b.Const(c, device.Float32)
			b.Output(b.Binary(op, xr, cr))
			b.Output(b.Binary(op, cr, xr))
			b.Output(b.Binary(op, xr, k))
			b.Output(b.Binary(op, k, xr))
			var outs []device.View
			for j := 0; j < 4; j++ {
				outs = append(outs, device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, []int{n}))
			}
			require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: []int{n}, Inputs: []device.View{in, sv}, Program: b.P, Outputs: outs}))
			for j, o := range outs {
				got := download(t, d, o.Buf, device.Float32, n)
				for i, xv := range x {
					a, bb := float32(xv), float32(c)
					if j%2 == 1 {
						a, bb = bb, a
					}
					want := float64(device.BinaryF32(op, a, bb))
					if math.IsNaN(want) {
						require.True(t, math.IsNaN(got[i]), "%s(%v, %v)", op, a, bb)
					} else {
						if want != got[i] {
							require.Equal(t, want, got[i], "%s(%v, %v) form %d", op, a, bb, j)
						}
					}
				}
			}
		}
	}
}

func TestElementwiseNegativeStrides(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 2)
	rows, cols := 300, 301
	x, xv := strided(t, d, r, device.Float32, []int{rows, cols}, []int{0, 1}, 0)
	// The view flips both axes: element (i, j) is x[rows-1-i, cols-1-j].
	flip := device.View{Buf: x.Buf, DType: device.Float32, Offset: rows*cols - 1, Shape: []int{rows, cols}, Strides: []int{-cols, -1}}
	out := device.Contiguous(poisoned(t, d, device.Float32, rows*cols), device.Float32, 0, []int{rows, cols})
	require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: []int{rows, cols}, Inputs: []device.View{flip},
		Program: unaryProgram(device.OpNeg, device.Float32), Outputs: []device.View{out}}))
	got := download(t, d, out.Buf, device.Float32, rows*cols)
	for p := range got {
		if -float64(float32(xv[rows*cols-1-p])) != got[p] {
			require.Equal(t, -float64(float32(xv[rows*cols-1-p])), got[p])
		}
	}
}

// TestElementwiseUniformMixedUses checks constants and broadcast scalars
// that some instructions read as scalar operands (evaluated once per
// chunk) and others element by element (filled), over several chunks.
func TestElementwiseUniformMixedUses(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	n := 3*chunkLen + 5
	x := randVals(r, n)
	in := device.Contiguous(upload(t, d, device.Float32, x), device.Float32, 0, []int{n})
	sv := device.View{Buf: upload(t, d, device.Float32, []float64{0.25}), DType: device.Float32, Shape: []int{n}, Strides: []int{0}}
	var b device.Builder
	xr, s := b.Input(0, device.Float32), b.Input(1, device.Float32)
	k := b.Const(-0.5, device.Float32)
	scaled := b.Binary(device.OpAdd, b.Binary(device.OpMul, xr, k), s) // scalar uses only
	sel := b.Where(b.Binary(device.OpGt, xr, k), b.Unary(device.OpNeg, s), scaled)
	b.Output(b.Binary(device.OpMul, sel, k))
	b.Output(scaled)
	outs := []device.View{
		device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, []int{n}),
		device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, []int{n}),
	}
	require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: []int{n}, Inputs: []device.View{in, sv}, Program: b.P, Outputs: outs}))
	got0 := download(t, d, outs[0].Buf, device.Float32, n)
	got1 := download(t, d, outs[1].Buf, device.Float32, n)
	for i, xv := range x {
		xf := float32(xv)
		sc := xf*-0.5 + 0.25
		v := sc
		if xf > -0.5 {
			v = -0.25
		}
		if float64(v*-0.5) != got0[i] {
			require.Equal(t, float64(v*-0.5), got0[i], "x=%v", xf)
		}
		if float64(sc) != got1[i] {
			require.Equal(t, float64(sc), got1[i], "x=%v", xf)
		}
	}
}

// TestElementwiseCompareWhereScalars checks float comparisons and
// selections with constant and broadcast operands on either side (the
// scalar kernels), with vector operands, and an int32 selection, over
// several chunks and against device.Compare.
func TestElementwiseCompareWhereScalars(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	n := 2*chunkLen + 7
	x, y := randVals(r, n), randVals(r, n)
	copy(x, specials)
	for i := 0; i < n; i += 5 {
		y[i] = x[i]
	}
	view := func(vals []float64) device.View {
		return device.Contiguous(upload(t, d, device.Float32, vals), device.Float32, 0, []int{n})
	}
	const sc = 0.25
	sv := device.View{Buf: upload(t, d, device.Float32, []float64{sc}), DType: device.Float32, Shape: []int{n}, Strides: []int{0}}
	for op := device.OpEq; op <= device.OpGe; op++ {
		var b device.Builder
		xr, yr, s := b.Input(0, device.Float32), b.Input(1, device.Float32), b.Input(2, device.Float32)
		k := b.Const(0, device.Float32)
		b.Output(b.Cast(b.Binary(op, xr, k), device.Float32))
		b.Output(b.Cast(b.Binary(op, s, xr), device.Float32))
		b.Output(b.Cast(b.Binary(op, xr, yr), device.Float32))
		b.Output(b.Where(b.Binary(op, xr, k), yr, k))
		b.Output(b.Where(b.Binary(op, xr, yr), s, yr))
		b.Output(b.Where(b.Binary(op, yr, xr), xr, yr))
		xi, yi := b.Cast(xr, device.Int32), b.Cast(yr, device.Int32)
		b.Output(b.Cast(b.Where(b.Binary(op, xr, s), xi, yi), device.Float32))
		var outs []device.View
		for range b.P.Outputs {
			outs = append(outs, device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, []int{n}))
		}
		require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: []int{n}, Inputs: []device.View{view(x), view(y), sv}, Program: b.P, Outputs: outs}))
		got := make([][]float64, len(outs))
		for j, o := range outs {
			got[j] = download(t, d, o.Buf, device.Float32, n)
		}
		sel := func(c bool, a, b float32) float32 {
			if c {
				return a
			}
			return b
		}
		for i := range x {
			xf, yf := float32(x[i]), float32(y[i])
			want := []float32{
				float32(b2f(device.Compare(op, xf, 0))),
				float32(b2f(device.Compare(op, float32(sc), xf))),
				float32(b2f(device.Compare(op, xf, yf))),
				sel(device.Compare(op, xf, 0), yf, 0),
				sel(device.Compare(op, xf, yf), sc, yf),
				sel(device.Compare(op, yf, xf), xf, yf),
				float32(sel(device.Compare(op, xf, sc), float32(device.FloatToInt32(xf)), float32(device.FloatToInt32(yf)))),
			}
			for j, w := range want {
				if math.IsNaN(float64(w)) {
					require.True(t, math.IsNaN(got[j][i]), "%s output %d at x=%v y=%v", op, j, xf, yf)
					continue
				}
				if float64(w) != got[j][i] {
					require.Equal(t, float64(w), got[j][i], "%s output %d at x=%v y=%v", op, j, xf, yf)
				}
			}
		}
	}
}
