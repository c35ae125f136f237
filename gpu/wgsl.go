package gpu

import (
	"fmt"
	"math"
	"strings"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// GenerateHooks returns WGSL defining the launch's hook functions,
// specialized to its programs: straight-line typed code that calls the op_*
// functions of ops.wgsl and reads views through the program blocks of the
// params. It is what the WebGPU backend splices into a kernel in place of
// interp.wgsl (shaders.Compose).
func GenerateHooks(l *Launch) string {
	var b strings.Builder
	for _, h := range l.Hooks {
		genHook(&b, h)
	}
	return b.String()
}

// hookSig gives each hook's signature, its position parameter and how the
// accumulator parameter is typed.
var hookSig = map[string]struct{ sig, pos, acc string }{
	HookElementwise:    {"fn ew_program(p: u32)", "p", ""},
	HookReducePrologue: {"fn reduce_prologue(p: u32) -> f32", "p", ""},
	HookReduceEpilogue: {"fn reduce_epilogue(p: u32, acc: u32)", "p", "bits"},
	HookEpilogue:       {"fn epilogue(p: u32, acc: f32)", "p", "f32"},
}

// wgslType is the WGSL type of a register type.
func wgslType(t device.DType) string {
	switch t {
	case device.Int32:
		return "i32"
	case device.Bool:
		return "bool"
	}
	return "f32"
}

// fromBits converts compute-type bits (a u32 expression) to a typed value.
func fromBits(t device.DType, x string) string {
	switch t {
	case device.Int32:
		return "bitcast<i32>(" + x + ")"
	case device.Bool:
		return "(" + x + " != 0u)"
	}
	return "bitcast<f32>(" + x + ")"
}

// toBits converts a typed value to compute-type bits.
func toBits(t device.DType, x string) string {
	if t == device.Bool {
		return "select(0u, 1u, " + x + ")"
	}
	return "bitcast<u32>(" + x + ")"
}

func genHook(b *strings.Builder, h Hook) {
	s, ok := hookSig[h.Name]
	if !ok {
		panic("gpu: unknown hook " + h.Name)
	}
	fmt.Fprintf(b, "%s {\n    let blk = params[%du];\n", s.sig, h.Header)
	p := h.Program
	for i, in := range p.Code {
		fmt.Fprintf(b, "    let r%d: %s = %s;\n", i, wgslType(in.Type), genExpr(p, in, h, s.pos, s.acc))
	}
	for j := 0; j < h.NOut; j++ {
		r := p.Outputs[j]
		t := p.Code[r].Type
		fmt.Fprintf(b, "    prog_store(blk, %du, %s, %s, %du);\n", h.NIn+j, s.pos, toBits(t, fmt.Sprintf("r%d", r)), uint32(t))
	}
	if h.Name == HookReducePrologue {
		fmt.Fprintf(b, "    return r%d;\n", p.Outputs[0])
	}
	b.WriteString("}\n\n")
}

// unaryFloat names the ops.wgsl function of each float unary op.
var unaryFloat = map[device.Op]string{
	device.OpNeg: "op_neg", device.OpAbs: "op_abs", device.OpSign: "op_sign", device.OpExp: "op_exp",
	device.OpLog: "op_log", device.OpSqrt: "op_sqrt", device.OpRsqrt: "op_rsqrt", device.OpRecip: "op_recip",
	device.OpSin: "op_sin", device.OpCos: "op_cos", device.OpTanh: "op_tanh", device.OpSigmoid: "op_sigmoid",
	device.OpRelu: "op_relu", device.OpErf: "op_erf", device.OpGeluErf: "op_gelu_erf",
	device.OpGeluTanh: "op_gelu_tanh", device.OpSilu: "op_silu", device.OpFloor: "op_floor", device.OpCeil: "op_ceil",
}

var binaryFloat = map[device.Op]string{
	device.OpAdd: "op_add", device.OpSub: "op_sub", device.OpMul: "op_mul", device.OpDiv: "op_div",
	device.OpPow: "op_pow", device.OpMax: "op_max", device.OpMin: "op_min",
}

var unaryInt = map[device.Op]string{device.OpNeg: "op_neg_i", device.OpAbs: "op_abs_i", device.OpSign: "op_sign_i"}

var binaryInt = map[device.Op]string{
	device.OpAdd: "%s + %s", device.OpSub: "%s - %s", device.OpMul: "%s * %s",
	device.OpDiv: "op_div_i(%s, %s)", device.OpMax: "max(%s, %s)", device.OpMin: "min(%s, %s)",
}

var compareFmt = map[device.Op]string{
	device.OpEq: "%s == %s", device.OpNe: "!(%s == %s)", device.OpLt: "%s < %s",
	device.OpLe: "%s <= %s", device.OpGt: "%s > %s", device.OpGe: "%s >= %s",
}

// genExpr returns the WGSL expression of one validated instruction.
func genExpr(p device.Program, in device.Instr, h Hook, pos, acc string) string {
	arg := func(a int) string { return fmt.Sprintf("r%d", in.Args[a]) }
	var at device.DType
	if in.Op.Arity() > 0 {
		at = p.Code[in.Args[0]].Type
	}
	switch op := in.Op; {
	case op == device.OpInput:
		if h.Acc && in.Index == 0 {
			if acc == "f32" {
				return "acc"
			}
			return fromBits(in.Type, "acc")
		}
		k := in.Index
		if h.Acc {
			k--
		}
		return fromBits(in.Type, fmt.Sprintf("prog_load(blk, %du, %s)", k, pos))
	case op == device.OpConst:
		return constExpr(in)
	case op == device.OpIndex:
		return "i32(" + pos + ")"
	case op == device.OpRandUniform:
		return fmt.Sprintf("rand_uniform(0x%08xu, %s)", device.StreamKey(in.Seed), pos)
	case op == device.OpRandNormal:
		return fmt.Sprintf("rand_normal(0x%08xu, %s)", device.StreamKey(in.Seed), pos)
	case op == device.OpIsNaN:
		return "is_nan(" + arg(0) + ")"
	case op == device.OpNot:
		return "!" + arg(0)
	case op == device.OpCast:
		return castExpr(arg(0), at, in.Type)
	case op == device.OpAnd:
		return arg(0) + " && " + arg(1)
	case op == device.OpOr:
		return arg(0) + " || " + arg(1)
	case op == device.OpWhere:
		return fmt.Sprintf("select(%s, %s, %s)", arg(2), arg(1), arg(0))
	case op == device.OpFma:
		return fmt.Sprintf("fma(%s, %s, %s)", arg(0), arg(1), arg(2))
	case op.IsComparison():
		return fmt.Sprintf(compareFmt[op], arg(0), arg(1))
	case op.Arity() == 2 && at == device.Int32:
		return fmt.Sprintf(binaryInt[op], arg(0), arg(1))
	case op.Arity() == 2:
		return fmt.Sprintf("%s(%s, %s)", binaryFloat[op], arg(0), arg(1))
	case at == device.Int32:
		return fmt.Sprintf("%s(%s)", unaryInt[op], arg(0))
	default:
		return fmt.Sprintf("%s(%s)", unaryFloat[op], arg(0))
	}
}

// constExpr writes a constant exactly: float bits through as_f32, which is
// never constant-folded (WGSL rejects infinite and NaN constants).
func constExpr(in device.Instr) string {
	switch in.Type {
	case device.Int32:
		return fmt.Sprintf("bitcast<i32>(0x%08xu)", uint32(int32(in.Imm)))
	case device.Bool:
		if in.Imm != 0 {
			return "true"
		}
		return "false"
	}
	f := float32(in.Imm)
	if math.IsInf(float64(f), 0) || f != f {
		return fmt.Sprintf("as_f32(0x%08xu)", math.Float32bits(f))
	}
	return fmt.Sprintf("bitcast<f32>(0x%08xu)", math.Float32bits(f))
}

// castExpr converts x of register type from to register type to, with
// device.FloatToInt32 semantics for float to int.
func castExpr(x string, from, to device.DType) string {
	switch {
	case from == to:
		return x
	case to == device.Float32 && from == device.Int32:
		return "f32(" + x + ")"
	case to == device.Float32:
		return "select(0.0, 1.0, " + x + ")"
	case to == device.Int32 && from == device.Float32:
		return "f32_to_i32(" + x + ")"
	case to == device.Int32:
		return "select(0, 1, " + x + ")"
	case from == device.Float32:
		return "(" + x + " != 0.0 || is_nan(" + x + "))"
	}
	return "(" + x + " != 0)"
}
