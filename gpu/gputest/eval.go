package gputest

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// EvalProgram evaluates a validated program at linear position pos, with
// in(k) giving input k as a compute-type value (float32, int32 or 0/1 held
// in a float64), and returns its outputs. It is the reference for the
// kernels' fused programs, built from package device's scalar definitions.
func EvalProgram(p device.Program, pos int, in func(k int) float64) []float64 {
	r := make([]float64, len(p.Code))
	for i, x := range p.Code {
		var a [3]float64
		for j := 0; j < x.Op.Arity(); j++ {
			a[j] = r[x.Args[j]]
		}
		var at device.DType
		if x.Op.Arity() > 0 {
			at = p.Code[x.Args[0]].Type
		}
		r[i] = evalInstr(x, at, a, pos, in)
	}
	out := make([]float64, len(p.Outputs))
	for j, o := range p.Outputs {
		out[j] = r[o]
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func evalInstr(x device.Instr, at device.DType, a [3]float64, pos int, in func(int) float64) float64 {
	f := func(v float64) float32 { return float32(v) }
	i := func(v float64) int32 { return int32(v) }
	switch op := x.Op; {
	case op == device.OpInput:
		return in(x.Index)
	case op == device.OpConst:
		if x.Type == device.Float32 {
			return float64(float32(x.Imm))
		}
		return x.Imm
	case op == device.OpIndex:
		return float64(pos)
	case op == device.OpRandUniform:
		return float64(device.Uniform(device.StreamKey(x.Seed), uint32(pos)))
	case op == device.OpRandNormal:
		return float64(device.Normal(device.StreamKey(x.Seed), uint32(pos)))
	case op == device.OpIsNaN:
		return b2f(math.IsNaN(a[0]))
	case op == device.OpNot:
		return 1 - a[0]
	case op == device.OpCast:
		return castValue(a[0], at, x.Type)
	case op == device.OpAnd:
		return b2f(a[0] != 0 && a[1] != 0)
	case op == device.OpOr:
		return b2f(a[0] != 0 || a[1] != 0)
	case op == device.OpWhere:
		if a[0] != 0 {
			return a[1]
		}
		return a[2]
	case op == device.OpFma:
		return float64(float32(math.FMA(a[0], a[1], a[2])))
	case op.IsComparison() && at == device.Int32:
		return b2f(device.Compare(op, i(a[0]), i(a[1])))
	case op.IsComparison():
		return b2f(device.Compare(op, f(a[0]), f(a[1])))
	case op.Arity() == 2 && at == device.Int32:
		return float64(device.BinaryI32(op, i(a[0]), i(a[1])))
	case op.Arity() == 2:
		return float64(device.BinaryF32(op, f(a[0]), f(a[1])))
	case at == device.Int32:
		return float64(device.UnaryI32(op, i(a[0])))
	}
	return float64(device.UnaryF32(x.Op, f(a[0])))
}

// castValue converts between register types like OpCast.
func castValue(v float64, from, to device.DType) float64 {
	switch {
	case from == to:
		return v
	case to == device.Bool:
		return b2f(v != 0)
	case to == device.Int32 && from == device.Float32:
		return float64(device.FloatToInt32(float32(v)))
	case to == device.Float32:
		return float64(float32(v))
	}
	return v
}
