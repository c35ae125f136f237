package gpu

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// GenerateHooks returns WGSL defining the launch's hook functions,
// specialized to its programs: straight-line typed code that calls the op_*
// functions of ops.wgsl, with every view read and written through a helper
// specialized to its binding and dtype, and the block layout (ranks,
// descriptor offsets, contiguity) written in as constants. View offsets,
// strides and shapes, and the programs' constants and random-stream keys,
// still come from the params: drivers fold literal constants without IEEE
// NaN and infinity semantics (lavapipe turns x/0.0 into 0), and programs
// that differ only in constants or seeds (a learning rate, a dropout mask
// per step) share one pipeline. It is what the WebGPU backend splices into
// a kernel in place of hooks.wgsl's placeholders (shaders.Compose); the text is also the
// pipeline's cache key.
func GenerateHooks(l *Launch) string {
	var b strings.Builder
	var acc accessors
	for _, h := range l.Hooks {
		genHook(&b, h, &acc)
	}
	acc.write(&b)
	return b.String()
}

// hookSig gives each hook's signature and how its accumulator parameter is
// typed ("" none, "bits" u32 bits, "f32").
var hookSig = map[string]struct{ sig, acc string }{
	HookElementwise:    {"fn ew_program(p: u32)", ""},
	HookReducePrologue: {"fn reduce_prologue(p: u32) -> f32", ""},
	HookReduceEpilogue: {"fn reduce_epilogue(p: u32, acc: u32)", "bits"},
	HookEpilogue:       {"fn epilogue(p: u32, acc: f32)", "f32"},
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

// accessor is a typed load or store helper for one binding and dtype.
type accessor struct {
	store   bool
	binding int
	dt      device.DType
}

// accessors collects the helpers a hook set uses.
type accessors []accessor

// name returns the helper's name, registering it.
func (as *accessors) name(a accessor) string {
	if !slices.Contains(*as, a) {
		*as = append(*as, a)
	}
	op := "ld"
	if a.store {
		op = "st"
	}
	return fmt.Sprintf("%s_%d_%s", op, a.binding, dtypeName[a.dt])
}

var dtypeName = map[device.DType]string{device.Float32: "f32", device.Float16: "f16", device.BFloat16: "bf16", device.Int32: "i32", device.Bool: "bool",
	device.Uint8: "u8", device.Int8: "i8"}

// write emits the helpers: words are accessed atomically (the bindings are
// array<atomic<u32>>); sub-word stores clear and set their bits with
// atomic and/or, like store_raw. Uint8 loads zero-extend and Int8 loads
// sign-extend their byte to i32; both store the i32's low byte
// (device.StoreInt32).
func (as accessors) write(b *strings.Builder) {
	for _, a := range as {
		buf := fmt.Sprintf("b%d", a.binding)
		t := wgslType(a.dt.ComputeType())
		if !a.store {
			fmt.Fprintf(b, "fn ld_%d_%s(e: u32) -> %s {\n    return ", a.binding, dtypeName[a.dt], t)
			switch a.dt {
			case device.Float32:
				fmt.Fprintf(b, "bitcast<f32>(atomicLoad(&%s[e]))", buf)
			case device.Int32:
				fmt.Fprintf(b, "bitcast<i32>(atomicLoad(&%s[e]))", buf)
			case device.Float16:
				fmt.Fprintf(b, "f16_to_f32((atomicLoad(&%s[e >> 1u]) >> ((e & 1u) * 16u)) & 0xffffu)", buf)
			case device.BFloat16:
				fmt.Fprintf(b, "bitcast<f32>(((atomicLoad(&%s[e >> 1u]) >> ((e & 1u) * 16u)) & 0xffffu) << 16u)", buf)
			case device.Bool:
				fmt.Fprintf(b, "((atomicLoad(&%s[e >> 2u]) >> ((e & 3u) * 8u)) & 0xffu) != 0u", buf)
			case device.Uint8:
				fmt.Fprintf(b, "i32((atomicLoad(&%s[e >> 2u]) >> ((e & 3u) * 8u)) & 0xffu)", buf)
			case device.Int8: // the byte to the top, then an arithmetic shift back
				fmt.Fprintf(b, "bitcast<i32>(atomicLoad(&%s[e >> 2u]) << (24u - (e & 3u) * 8u)) >> 24u", buf)
			}
			b.WriteString(";\n}\n\n")
			continue
		}
		fmt.Fprintf(b, "fn st_%d_%s(e: u32, v: %s) {\n", a.binding, dtypeName[a.dt], t)
		part := func(shift, mask, bits string) {
			fmt.Fprintf(b, "    let w = e >> %s;\n    let s = (e & %s) * %s;\n", shift, mask, map[string]string{"1u": "16u", "3u": "8u"}[mask])
			fmt.Fprintf(b, "    atomicAnd(&%s[w], ~(%s << s));\n    atomicOr(&%s[w], %s << s);\n",
				buf, map[string]string{"1u": "0xffffu", "3u": "0xffu"}[mask], buf, bits)
		}
		switch a.dt {
		case device.Float32, device.Int32:
			fmt.Fprintf(b, "    atomicStore(&%s[e], bitcast<u32>(v));\n", buf)
		case device.Float16:
			part("1u", "1u", "f32_to_f16(v)")
		case device.BFloat16:
			part("1u", "1u", "f32_to_bf16(v)")
		case device.Bool:
			part("2u", "3u", "select(0u, 1u, v)")
		case device.Uint8, device.Int8:
			part("2u", "3u", "(bitcast<u32>(v) & 0xffu)")
		}
		b.WriteString("}\n\n")
	}
}

// viewElem returns the expression of view v's element at position p.
func viewElem(h Hook, v HookView) string {
	d := fmt.Sprintf("blk + %du", v.Desc)
	if v.Contiguous {
		return fmt.Sprintf("params[%s + 2u] + p", d)
	}
	return fmt.Sprintf("view_elem(%s, blk + %du, %du, p)", d, BlockShapeWord, h.Rank)
}

func genHook(b *strings.Builder, h Hook, acc *accessors) {
	s, ok := hookSig[h.Name]
	if !ok {
		panic("gpu: unknown hook " + h.Name)
	}
	fmt.Fprintf(b, "%s {\n    let blk = params[%du];\n", s.sig, h.Header)
	p := h.Program
	for i, in := range p.Code {
		imm := fmt.Sprintf("params[blk + %du]", h.ImmWord(i))
		fmt.Fprintf(b, "    let r%d: %s = %s;\n", i, wgslType(in.Type), genExpr(p, in, h, s.acc, imm, acc))
	}
	for j := 0; j < h.NOut; j++ {
		v := h.Views[h.NIn+j]
		st := acc.name(accessor{store: true, binding: v.Binding, dt: v.DType})
		fmt.Fprintf(b, "    %s(%s, r%d);\n", st, viewElem(h, v), p.Outputs[j])
	}
	if h.Name == HookReducePrologue {
		fmt.Fprintf(b, "    return r%d;\n", p.Outputs[0])
	}
	b.WriteString("}\n\n")
}

var binaryInt = map[device.Op]string{
	device.OpAdd: "%s + %s", device.OpSub: "%s - %s", device.OpMul: "%s * %s",
	device.OpMax: "max(%s, %s)", device.OpMin: "min(%s, %s)",
}

var compareFmt = map[device.Op]string{
	device.OpEq: "%s == %s", device.OpNe: "!(%s == %s)", device.OpLt: "%s < %s",
	device.OpLe: "%s <= %s", device.OpGt: "%s > %s", device.OpGe: "%s >= %s",
}

// genExpr returns the WGSL expression of one validated instruction; imm is
// the expression of its immediate word.
func genExpr(p device.Program, in device.Instr, h Hook, accKind, imm string, acc *accessors) string {
	arg := func(a int) string { return fmt.Sprintf("r%d", in.Args[a]) }
	pos := fmt.Sprintf("(p + params[blk + %du])", h.Base) // the position in the whole kernel's space
	var at device.DType
	if in.Op.Arity() > 0 {
		at = p.Code[in.Args[0]].Type
	}
	switch op := in.Op; {
	case op == device.OpInput:
		if h.Acc && in.Index == 0 {
			if accKind == "f32" {
				return "acc"
			}
			return fromBits(in.Type, "acc")
		}
		k := in.Index
		if h.Acc {
			k--
		}
		v := h.Views[k]
		return fmt.Sprintf("%s(%s)", acc.name(accessor{binding: v.Binding, dt: v.DType}), viewElem(h, v))
	case op == device.OpConst:
		return fromBits(in.Type, imm)
	case op == device.OpIndex:
		return "i32(" + pos + ")"
	case op == device.OpRandUniform:
		return "rand_uniform(" + imm + ", " + pos + ")"
	case op == device.OpRandNormal:
		return "rand_normal(" + imm + ", " + pos + ")"
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
	case OpFunction(op, at) != "":
		args := arg(0)
		if op.Arity() == 2 {
			args += ", " + arg(1)
		}
		return fmt.Sprintf("%s(%s)", OpFunction(op, at), args)
	default:
		return fmt.Sprintf(binaryInt[op], arg(0), arg(1))
	}
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

// HooksKey identifies GenerateHooks(l) without generating it: launches
// with equal keys generate the same text. It encodes everything the
// generator reads (never constants or seeds, which come from the params),
// cheaply, so that backends can look pipelines up on every launch.
func HooksKey(l *Launch) string { return string(AppendHooksKey(nil, l)) }

// AppendHooksKey appends HooksKey(l) to k, for lookups without allocation.
func AppendHooksKey(k []byte, l *Launch) []byte {
	put := func(vs ...int) {
		for _, v := range vs {
			k = binary.AppendUvarint(k, uint64(v))
		}
	}
	for _, h := range l.Hooks {
		k = append(k, h.Name...)
		put(0, h.Header, int(b2u(h.Acc)), h.NIn, h.NOut, h.Rank, h.Imm, h.Base, len(h.Views))
		for _, v := range h.Views {
			put(v.Desc, v.Binding, int(v.DType), int(b2u(v.Contiguous)))
		}
		put(len(h.Program.Code))
		for _, in := range h.Program.Code {
			put(int(in.Op), int(in.Type))
			for a := 0; a < in.Op.Arity(); a++ {
				put(int(in.Args[a]))
			}
			if in.Op == device.OpInput {
				put(in.Index)
			}
		}
		put(len(h.Program.Outputs))
		for _, r := range h.Program.Outputs {
			put(int(r))
		}
	}
	return k
}
