package spv

import (
	"fmt"

	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// floatCompare and intCompare are the comparison opcodes (OpNe on floats
// is the negation of ordered equality, true when either side is NaN).
var floatCompare = map[device.Op]uint16{
	device.OpEq: opFOrdEqual, device.OpLt: opFOrdLessThan, device.OpLe: opFOrdLessThanEq,
	device.OpGt: opFOrdGreaterThan, device.OpGe: opFOrdGreaterThanEq,
}

var intCompare = map[device.Op]uint16{
	device.OpEq: opIEqual, device.OpNe: opINotEqual, device.OpLt: opSLessThan, device.OpLe: opSLessThanEq,
	device.OpGt: opSGreaterThan, device.OpGe: opSGreaterThanEq,
}

// intBinary are the int32 ops that are instructions (wrapping arithmetic)
// or GLSL.std.450 extended instructions (negative values: -inst).
var intBinary = map[device.Op]int{
	device.OpAdd: opIAdd, device.OpSub: opISub, device.OpMul: opIMul,
	device.OpMax: -glslSMax, device.OpMin: -glslSMin,
}

// instr emits instruction i of the hook's program and returns its value.
func (g *hookGen) instr(i int, in device.Instr) (uint32, error) {
	p := g.h.Program
	arg := func(a int) uint32 { return g.regs[in.Args[a]] }
	var at device.DType
	if in.Op.Arity() > 0 {
		at = p.Code[in.Args[0]].Type
	}
	t := g.regType(in.Type)
	imm := func() uint32 { return g.param(g.blkWord(g.h.ImmWord(i))) }
	switch op := in.Op; {
	case op == device.OpInput:
		if g.h.Acc && in.Index == 0 {
			if g.accF32 {
				return g.acc, nil
			}
			return g.fromBits(in.Type, g.acc), nil
		}
		k := in.Index
		if g.h.Acc {
			k--
		}
		if k < 0 || k >= g.h.NIn {
			return 0, fmt.Errorf("input %d out of range", in.Index)
		}
		return g.load(g.h.Views[k])
	case op == device.OpConst:
		return g.fromBits(in.Type, imm()), nil
	case op == device.OpIndex:
		return g.val(opBitcast, g.i32(), g.pos()), nil
	case op == device.OpRandUniform:
		return g.call(gpu.FnRandUniform, imm(), g.pos())
	case op == device.OpRandNormal:
		return g.call(gpu.FnRandNormal, imm(), g.pos())
	case op == device.OpIsNaN:
		return g.call(gpu.FnIsNaN, arg(0))
	case op == device.OpNot:
		return g.val(opLogicalNot, t, arg(0)), nil
	case op == device.OpCast:
		return g.cast(arg(0), at, in.Type)
	case op == device.OpAnd:
		return g.val(opLogicalAnd, t, arg(0), arg(1)), nil
	case op == device.OpOr:
		return g.val(opLogicalOr, t, arg(0), arg(1)), nil
	case op == device.OpWhere:
		return g.val(opSelect, t, arg(0), arg(1), arg(2)), nil
	case op == device.OpFma:
		return g.ext(t, glslFma, arg(0), arg(1), arg(2)), nil
	case op.IsComparison() && at == device.Int32:
		return g.val(intCompare[op], t, arg(0), arg(1)), nil
	case op == device.OpNe:
		return g.val(opLogicalNot, t, g.val(opFOrdEqual, t, arg(0), arg(1))), nil
	case op.IsComparison():
		return g.val(floatCompare[op], t, arg(0), arg(1)), nil
	case gpu.OpFunction(op, at) != "":
		args := []uint32{arg(0)}
		if op.Arity() == 2 {
			args = append(args, arg(1))
		}
		return g.call(gpu.OpFunction(op, at), args...)
	case op.Arity() == 2 && at == device.Int32:
		switch x := intBinary[op]; {
		case x > 0:
			return g.val(uint16(x), t, arg(0), arg(1)), nil
		case x < 0:
			return g.ext(t, uint32(-x), arg(0), arg(1)), nil
		}
	}
	return 0, fmt.Errorf("op %s on %s is not supported", in.Op, at)
}

// cast converts x of register type from to register type to, with
// device.FloatToInt32 semantics for float to int and NaN to true.
func (g *hookGen) cast(x uint32, from, to device.DType) (uint32, error) {
	switch {
	case from == to:
		return x, nil
	case to == device.Float32 && from == device.Int32:
		return g.val(opConvertSToF, g.f32(), x), nil
	case to == device.Float32:
		return g.val(opSelect, g.f32(), x, g.cf(1), g.cf(0)), nil
	case to == device.Int32 && from == device.Float32:
		return g.call(gpu.FnF32ToI32, x)
	case to == device.Int32:
		return g.val(opSelect, g.i32(), x, g.ci(1), g.ci(0)), nil
	case from == device.Float32:
		nan, err := g.call(gpu.FnIsNaN, x)
		if err != nil {
			return 0, err
		}
		return g.val(opLogicalOr, g.boolT(), g.val(opFOrdNotEqual, g.boolT(), x, g.cf(0)), nan), nil
	}
	return g.val(opINotEqual, g.boolT(), x, g.ci(0)), nil
}
