package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// scalar is one register value of the reference interpreter.
type scalar struct {
	f float32
	i int32
	b bool
}

// refEval evaluates program p at linear position pos one element at a time,
// straight from the device package's scalar definitions.
func refEval(p device.Program, pos int, load func(i int) scalar) []scalar {
	regs := make([]scalar, len(p.Code))
	for r, in := range p.Code {
		a := func(k int) scalar { return regs[in.Args[k]] }
		at := func(k int) device.DType { return p.Code[in.Args[k]].Type }
		var v scalar
		switch op := in.Op; {
		case op == device.OpInput:
			v = load(in.Index)
		case op == device.OpConst:
			v = scalar{f: float32(in.Imm), i: int32(in.Imm), b: in.Imm != 0}
		case op == device.OpIndex:
			v.i = int32(pos)
		case op == device.OpRandUniform:
			v.f = device.Uniform(device.StreamKey(in.Seed), uint32(pos))
		case op == device.OpRandNormal:
			v.f = device.Normal(device.StreamKey(in.Seed), uint32(pos))
		case op == device.OpIsNaN:
			v.b = a(0).f != a(0).f
		case op == device.OpNot:
			v.b = !a(0).b
		case op == device.OpCast:
			x := a(0)
			switch from, to := at(0), in.Type; {
			case from == to:
				v = x
			case from == device.Float32 && to == device.Int32:
				v.i = device.FloatToInt32(x.f)
			case from == device.Float32:
				v.b = x.f != 0
			case from == device.Int32 && to == device.Float32:
				v.f = float32(x.i)
			case from == device.Int32:
				v.b = x.i != 0
			case to == device.Float32:
				v.f = float32(b2u(x.b))
			default:
				v.i = int32(b2u(x.b))
			}
		case op >= device.OpNeg && op <= device.OpCeil:
			if in.Type == device.Float32 {
				v.f = device.UnaryF32(op, a(0).f)
			} else {
				v.i = device.UnaryI32(op, a(0).i)
			}
		case op.IsComparison():
			if at(0) == device.Float32 {
				v.b = device.Compare(op, a(0).f, a(1).f)
			} else {
				v.b = device.Compare(op, a(0).i, a(1).i)
			}
		case op == device.OpAnd:
			v.b = a(0).b && a(1).b
		case op == device.OpOr:
			v.b = a(0).b || a(1).b
		case op >= device.OpAdd && op <= device.OpMin:
			if in.Type == device.Float32 {
				v.f = device.BinaryF32(op, a(0).f, a(1).f)
			} else {
				v.i = device.BinaryI32(op, a(0).i, a(1).i)
			}
		case op == device.OpWhere:
			v = a(2)
			if a(0).b {
				v = a(1)
			}
		case op == device.OpFma:
			v.f = float32(math.FMA(float64(a(0).f), float64(a(1).f), float64(a(2).f))) // rounded once, as tensor.Fma
		}
		regs[r] = v
	}
	out := make([]scalar, len(p.Outputs))
	for j, r := range p.Outputs {
		out[j] = regs[r]
	}
	return out
}

// exactUnary are the float unary ops whose SIMD kernels are exact (every
// binary arithmetic op is).
var exactUnary = []device.Op{device.OpNeg, device.OpAbs, device.OpSign, device.OpSqrt, device.OpRecip,
	device.OpRelu, device.OpFloor, device.OpCeil}

// randomProgram builds a valid program of about n instructions over inputs
// of the given dtypes, with outputs of random registers. With exact set it
// uses only ops whose SIMD kernels are exact (no transcendental functions,
// no fused multiply-add).
func randomProgram(r *rand.Rand, types []device.DType, n int, exact bool) device.Program {
	var b device.Builder
	byType := map[device.DType][]device.Reg{}
	add := func(x device.Reg) { byType[b.TypeOf(x)] = append(byType[b.TypeOf(x)], x) }
	for i, t := range types {
		add(b.Input(i, t))
	}
	pick := func(t device.DType) device.Reg {
		if rs := byType[t]; len(rs) > 0 {
			return rs[r.IntN(len(rs))]
		}
		switch t {
		case device.Float32:
			x := b.Const(float64(float32(r.NormFloat64())), t)
			add(x)
			return x
		case device.Int32:
			x := b.Const(float64(r.IntN(7)-3), t)
			add(x)
			return x
		}
		x := b.Const(float64(r.IntN(2)), t)
		add(x)
		return x
	}
	regTypes := []device.DType{device.Float32, device.Int32, device.Bool}
	for len(b.P.Code) < n {
		switch r.IntN(9) {
		case 0:
			op := device.Op(int(device.OpNeg) + r.IntN(int(device.OpCeil-device.OpNeg)+1))
			if op == device.OpIsNaN || op == device.OpNot || op == device.OpCast {
				op = device.OpTanh
			}
			if exact {
				op = exactUnary[r.IntN(len(exactUnary))]
			}
			add(b.Unary(op, pick(device.Float32)))
		case 1:
			add(b.Unary(device.Op(int(device.OpNeg)+r.IntN(3)), pick(device.Int32)))
		case 2, 3:
			t := regTypes[r.IntN(2)]
			op := device.Op(int(device.OpAdd) + r.IntN(int(device.OpMin-device.OpAdd)+1))
			if op == device.OpPow && (t == device.Int32 || exact) {
				op = device.OpMul
			}
			add(b.Binary(op, pick(t), pick(t)))
		case 4:
			t := regTypes[r.IntN(2)]
			add(b.Binary(device.Op(int(device.OpEq)+r.IntN(6)), pick(t), pick(t)))
		case 5:
			t := regTypes[r.IntN(3)]
			add(b.Where(pick(device.Bool), pick(t), pick(t)))
		case 6:
			x := pick(regTypes[r.IntN(3)])
			add(b.Cast(x, regTypes[r.IntN(3)]))
		case 7:
			if exact {
				add(b.Binary(device.OpSub, pick(device.Float32), pick(device.Float32)))
				continue
			}
			add(b.Fma(pick(device.Float32), pick(device.Float32), pick(device.Float32)))
		default:
			switch r.IntN(4) {
			case 0:
				add(b.Index())
			case 1:
				add(b.Rand(r.Uint64(), r.IntN(2) == 0))
			case 2:
				add(b.Binary(device.OpAnd, pick(device.Bool), pick(device.Bool)))
			default:
				add(b.Unary(device.OpIsNaN, pick(device.Float32)))
			}
		}
	}
	for k := 1 + r.IntN(3); k > 0; k-- {
		b.Output(device.Reg(r.IntN(len(b.P.Code))))
	}
	return b.P
}

// TestElementwiseRandomProgramsMatchScalarReference checks the interpreter
// bit for bit against the scalar reference with the pure-Go kernels, whose
// results are the scalar definitions.
func TestElementwiseRandomProgramsMatchScalarReference(t *testing.T) {
	useSeams(t, goSeams)
	checkRandomPrograms(t, false)
}

// TestElementwiseRandomProgramsSIMD runs random programs of exact ops with
// the SIMD kernels (in-place registers, scalar operands, conversions) bit
// for bit against the scalar reference.
func TestElementwiseRandomProgramsSIMD(t *testing.T) { checkRandomPrograms(t, true) }

// checkRandomPrograms runs 60 random programs on random strided,
// broadcast views and compares every output with refEval.
func checkRandomPrograms(t *testing.T, exact bool) {
	r := newRand(t)
	dtypes := []device.DType{device.Float32, device.Float16, device.BFloat16, device.Int32, device.Bool}
	for trial := 0; trial < 60; trial++ {
		d := newDevice(t, 1+r.IntN(3))
		rank := r.IntN(5)
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = 1 + r.IntN(9)
			if r.IntN(6) == 0 {
				shape[i] = 1 + r.IntN(700)
			}
		}
		for device.NumElements(shape) > 30000 { // keep the reference quick
			shape[r.IntN(rank)] = 1 + r.IntN(9)
		}
		n := device.NumElements(shape)
		var inputs []device.View
		var vals [][]float64
		var types []device.DType
		for i := r.IntN(4); i >= 0; i-- {
			dt := dtypes[r.IntN(len(dtypes))]
			perm := r.Perm(rank)
			v, vv := strided(t, d, r, dt, shape, perm, r.IntN(3))
			for k := range v.Shape { // broadcast some dimensions
				if r.IntN(4) == 0 {
					v.Strides[k] = 0
				}
			}
			inputs, vals, types = append(inputs, v), append(vals, vv), append(types, dt)
		}
		p := randomProgram(r, types, 2+r.IntN(12), exact)
		var outs []device.View
		for _, reg := range p.Outputs {
			dt := p.Code[reg].Type
			if dt == device.Float32 {
				dt = []device.DType{device.Float32, device.Float16, device.BFloat16}[r.IntN(3)]
			}
			outs = append(outs, device.Contiguous(poisoned(t, d, dt, n), dt, 0, shape))
		}
		k := &device.ElementwiseKernel{Shape: shape, Inputs: inputs, Program: p, Outputs: outs}
		require.NoError(t, d.Elementwise(k), "trial %d:\n%s", trial, p)
		got := make([][]float64, len(outs))
		for j, o := range outs {
			got[j] = download(t, d, o.Buf, o.DType, n)
		}
		for pos := 0; pos < n; pos++ {
			want := refEval(p, pos, func(i int) scalar {
				x := at(vals[i], inputs[i], pos)
				return scalar{f: float32(x), i: int32(x), b: x != 0}
			})
			for j, o := range outs {
				var w float64
				switch o.DType {
				case device.Int32:
					w = float64(want[j].i)
				case device.Bool:
					w = float64(b2u(want[j].b))
				default:
					w = round(o.DType, float64(want[j].f))
				}
				g := got[j][pos]
				if w != g && !(math.IsNaN(w) && math.IsNaN(g)) {
					require.Failf(t, "mismatch", "trial %d, shape %v, output %d (%s) at %d: want %v, got %v\n%s", trial, shape, j, o.DType, pos, w, g, p)
				}
			}
		}
	}
}
