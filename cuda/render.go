package cuda

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// opsSource is the CUDA C of every op's scalar semantics, which generated
// kernels start with.
//
//go:embed kernels/ops.cuh
var opsSource string

// ewEntry is the generated elementwise kernel's entry point.
const ewEntry = "sf_elementwise"

// ewMaxRank is the rank the elementwise kernel's parameters hold; more
// dimensions (after merging) are looped over on the host.
const ewMaxRank = 8

// ewUnroll is how many positions a thread of a one-dimensional
// elementwise launch loads at once, so that their loads overlap.
const ewUnroll = 4

// maxParamBytes is the kernel parameter space every CUDA device has.
const maxParamBytes = 4096

// OpFunction returns the ops.cuh function that generated CUDA C calls for an
// op of arity one or more: "op_" and the op's name in device's op table,
// overloaded on the argument types (the same spelling as ops.wgsl's float
// functions).
func OpFunction(op device.Op) string { return "op_" + op.Info().Name }

// cType is the CUDA C type of a register type.
func cType(t device.DType) string {
	switch t {
	case device.Int32:
		return "int"
	case device.Bool:
		return "bool"
	case device.Int64:
		return "long long"
	case device.Float64:
		return "double"
	}
	return "float"
}

// dtypeSuffix names a storage dtype in the sf_ld_* and sf_st_* helpers.
var dtypeSuffix = map[device.DType]string{device.Float32: "f32", device.Float16: "f16", device.BFloat16: "bf16",
	device.Int32: "i32", device.Bool: "bool", device.Int64: "i64", device.Float64: "f64", device.Uint8: "u8", device.Int8: "i8"}

// ewLayout is the shape of a generated elementwise kernel's parameter
// struct, a sequence of 64-bit words: n, rank, base, shape[ewMaxRank], then
// the input addresses, offsets and strides, the output addresses and
// offsets, and the immediates (constants' bits, random streams' keys).
// Arrays that would be empty hold one unused word.
type ewLayout struct{ nin, nout, nimm int }

// Word offsets of the parameter struct's fields.
func (l ewLayout) inPtr() int    { return 3 + ewMaxRank }
func (l ewLayout) inOff() int    { return l.inPtr() + max(l.nin, 1) }
func (l ewLayout) inStride() int { return l.inOff() + max(l.nin, 1) }
func (l ewLayout) outPtr() int   { return l.inStride() + max(l.nin, 1)*ewMaxRank }
func (l ewLayout) outOff() int   { return l.outPtr() + max(l.nout, 1) }
func (l ewLayout) imm() int      { return l.outOff() + max(l.nout, 1) }
func (l ewLayout) words() int    { return l.imm() + max(l.nimm, 1) }

// immSlots returns, for each instruction of p, its slot among the
// immediates (constants and random streams), or -1, and the slot count.
func immSlots(p device.Program) ([]int, int) { return immSlotsFrom(p, 0) }

// immSlotsFrom is immSlots numbering from slot first; it returns the next
// free slot.
func immSlotsFrom(p device.Program, first int) ([]int, int) {
	slots := make([]int, len(p.Code))
	n := first
	for i, in := range p.Code {
		slots[i] = -1
		switch in.Op {
		case device.OpConst, device.OpRandUniform, device.OpRandNormal:
			slots[i] = n
			n++
		}
	}
	return slots, n
}

// immWord is the parameter word of a constant or random instruction: a
// float32's bits, a float64's bits, an integer or bool's value, a stream's
// key.
func immWord(in device.Instr) int64 {
	switch in.Op {
	case device.OpRandUniform, device.OpRandNormal:
		return int64(device.StreamKey(in.Seed))
	}
	switch in.Type {
	case device.Float32:
		return int64(math.Float32bits(float32(in.Imm)))
	case device.Bool:
		if in.Imm != 0 {
			return 1
		}
		return 0
	case device.Float64:
		return int64(math.Float64bits(in.Imm))
	case device.Int64:
		return int64(in.Imm)
	}
	return int64(int32(in.Imm))
}

// ewSignature is what a generated elementwise kernel depends on: the
// program's code without its constants and seeds, and the dtypes of its
// inputs and outputs. Kernels with equal signatures share one module,
// whatever their shapes, strides, offsets, constants and seeds.
func ewSignature(k *device.ElementwiseKernel) string {
	return string(appendEwSignature(nil, k))
}

// appendEwSignature appends k's signature (ewSignature) to b.
func appendEwSignature(b []byte, k *device.ElementwiseKernel) []byte {
	b = append(b, 'e')
	for _, vs := range [][]device.View{k.Inputs, k.Outputs} {
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = append(b, byte(v.DType))
		}
	}
	return appendProgram(b, k.Program)
}

// appendEwKey appends to b everything of k but its buffers: the signature,
// the iteration shape, each view's offset, shape and strides, and each
// instruction's constant bits and seed. Validation but for the buffer
// checks (bind), planning and the module depend on nothing else, so
// kernels of equal keys differ at most in their buffers.
func appendEwKey(b []byte, k *device.ElementwiseKernel) []byte {
	b = appendInts(appendEwSignature(b, k), k.Shape)
	return appendImms(appendViewsKey(b, k.Inputs, k.Outputs), k.Program)
}

// appendViewsKey appends each view's offset, shape and strides, in
// groups, to b: a view's fields but its buffer and dtype, which kernel
// signatures hold.
func appendViewsKey(b []byte, groups ...[]device.View) []byte {
	for _, vs := range groups {
		for _, v := range vs {
			b = binary.AppendVarint(b, int64(v.Offset))
			b = appendInts(appendInts(b, v.Shape), v.Strides)
		}
	}
	return b
}

// appendImms appends each instruction's constant bits and seed, over
// progs, to b: an instruction's fields that kernel signatures leave out.
func appendImms(b []byte, progs ...device.Program) []byte {
	for _, p := range progs {
		for _, in := range p.Code {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(in.Imm))
			b = binary.LittleEndian.AppendUint64(b, in.Seed)
		}
	}
	return b
}

// appendInts appends s's length and elements to b.
func appendInts(b []byte, s []int) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	for _, v := range s {
		b = binary.AppendVarint(b, int64(v))
	}
	return b
}

// renderElementwise returns the CUDA C of a validated elementwise kernel:
// ops.cuh, the parameter struct and one kernel whose grid-stride loop runs
// the program at every output position, reading each input through its
// strided view and storing each output with its dtype's conversion. A
// launch of at most one dimension (after merging) and fewer than 2^31
// positions takes a loop with 32-bit positions and no division that loads
// ewUnroll positions' inputs before running the program on each. Only the
// signature (ewSignature) shapes the text.
func renderElementwise(k *device.ElementwiseKernel) string {
	p := k.Program
	slots, nimm := immSlots(p)
	l := ewLayout{nin: len(k.Inputs), nout: len(k.Outputs), nimm: nimm}
	var b strings.Builder
	b.WriteString(opsSource)
	fmt.Fprintf(&b, "\n// A generated elementwise kernel: %d inputs, %d outputs, %d instructions.\n",
		l.nin, l.nout, len(p.Code))
	fmt.Fprintf(&b, "struct sf_ew_params {\n\tlong long n, rank, base;\n\tlong long shape[%d];\n", ewMaxRank)
	fmt.Fprintf(&b, "\tunsigned long long in[%d];\n\tlong long in_off[%d];\n\tlong long in_stride[%d][%d];\n",
		max(l.nin, 1), max(l.nin, 1), max(l.nin, 1), ewMaxRank)
	fmt.Fprintf(&b, "\tunsigned long long out[%d];\n\tlong long out_off[%d];\n\tlong long imm[%d];\n};\n\n",
		max(l.nout, 1), max(l.nout, 1), max(nimm, 1))
	fmt.Fprintf(&b, "extern \"C\" __global__ void %s(const sf_ew_params p) {\n", ewEntry)
	load := func(j int) string {
		return fmt.Sprintf("sf_ld_%s(p.in[%d], e%d)", dtypeSuffix[k.Inputs[j].DType], j, j)
	}
	// body writes the program at position i, its inputs read by in, and
	// the stores.
	body := func(indent string, in func(j int) string) {
		if usesPosition(p) {
			fmt.Fprintf(&b, "%sconst long long pos = p.base + i;\n", indent)
		}
		writeProgram(&b, indent, p, "r", slots, in)
		for j, r := range p.Outputs {
			fmt.Fprintf(&b, "%ssf_st_%s(p.out[%d], p.out_off[%d] + i, r%d);\n", indent, dtypeSuffix[k.Outputs[j].DType], j, j, r)
		}
	}
	// unrolled32 writes a branch for launches of fewer than 2^31 positions
	// that cond selects: 32-bit positions, ewUnroll positions a step whose
	// loads all come before their stores, then a remainder loop; offsets
	// declares the input offsets e<j><suffix> at position pos.
	unrolled32 := func(cond, comment string, offsets func(pos, suffix string)) {
		fmt.Fprintf(&b, "\tif (%s) {\n\t\t// %s\n", cond, comment)
		b.WriteString("\t\tconst unsigned n = (unsigned)p.n, step = gridDim.x * blockDim.x;\n")
		b.WriteString("\t\tunsigned i0 = blockIdx.x * blockDim.x + threadIdx.x;\n")
		fmt.Fprintf(&b, "\t\tfor (; i0 + %d * step < n; i0 += %d * step) {\n", ewUnroll-1, ewUnroll)
		for u := 0; u < ewUnroll; u++ {
			offsets(fmt.Sprintf("i0 + %d * step", u), fmt.Sprintf("_%d", u))
			for j := 0; j < l.nin; j++ {
				fmt.Fprintf(&b, "\t\t\tconst auto l%d_%d = sf_ld_%s(p.in[%d], e%d_%d);\n", u, j, dtypeSuffix[k.Inputs[j].DType], j, j, u)
			}
		}
		for u := 0; u < ewUnroll; u++ {
			fmt.Fprintf(&b, "\t\t\t{\n\t\t\t\tconst unsigned i = i0 + %d * step;\n", u)
			body("\t\t\t\t", func(j int) string { return fmt.Sprintf("l%d_%d", u, j) })
			b.WriteString("\t\t\t}\n")
		}
		b.WriteString("\t\t}\n\t\tfor (unsigned i = i0; i < n; i += step) {\n")
		offsets("i", "")
		body("\t\t\t", load)
		b.WriteString("\t\t}\n\t\treturn;\n\t}\n")
	}
	unrolled32("p.rank <= 1 && p.n <= 0x7fffffff", "At most one dimension: each view's offset is a multiple of its one stride, no division.",
		func(pos, suffix string) {
			for j := 0; j < l.nin; j++ {
				fmt.Fprintf(&b, "\t\t\tconst long long e%d%s = p.in_off[%d] + (long long)(%s) * p.in_stride[%d][0];\n", j, suffix, j, pos, j)
			}
		})
	unrolled32("p.n <= 0x7fffffff", "Several dimensions: a 32-bit division per dimension (a 64-bit one costs several times more).",
		func(pos, suffix string) { writeOffsets32(&b, "\t\t\t", pos, suffix, l.nin) })
	b.WriteString("\tconst long long step = (long long)gridDim.x * blockDim.x;\n")
	b.WriteString("\tfor (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += step) {\n")
	writeOutOffsets(&b, "\t\t", "i", l.nin, 0)
	body("\t\t", load)
	b.WriteString("\t}\n}\n")
	return b.String()
}

// writeOffsets32 writes, after indent, the offsets e<j><suffix> of each of
// nin inputs at the 32-bit position pos, split over the launch's dimensions
// with 32-bit divisions (every size is below 2^31 when the count is).
func writeOffsets32(b *strings.Builder, indent, pos, suffix string, nin int) {
	var decl []string
	for j := 0; j < nin; j++ {
		decl = append(decl, fmt.Sprintf("e%d%s = p.in_off[%d]", j, suffix, j))
	}
	if nin == 0 {
		return
	}
	fmt.Fprintf(b, "%slong long %s;\n", indent, strings.Join(decl, ", "))
	fmt.Fprintf(b, "%sunsigned sf_rest%s = (unsigned)(%s);\n", indent, suffix, pos)
	fmt.Fprintf(b, "%sfor (int k = (int)p.rank - 1; k >= 0; k--) {\n", indent)
	fmt.Fprintf(b, "%s\tconst unsigned s = (unsigned)p.shape[k], x = sf_rest%s %% s;\n%s\tsf_rest%s /= s;\n", indent, suffix, indent, suffix)
	for j := 0; j < nin; j++ {
		fmt.Fprintf(b, "%s\te%d%s += (long long)x * p.in_stride[%d][k];\n", indent, j, suffix, j)
	}
	fmt.Fprintf(b, "%s}\n", indent)
}

// sharedMacro defines __shared__ where the compiler lacks CUDA's headers
// (clang's PTX check and the host double); NVRTC keeps its own.
const sharedMacro = "#ifndef __shared__\n#define __shared__ __attribute__((shared))\n#endif\n"

// usesPosition reports whether p reads the linear output position.
func usesPosition(p device.Program) bool {
	for _, in := range p.Code {
		switch in.Op {
		case device.OpIndex, device.OpRandUniform, device.OpRandNormal:
			return true
		}
	}
	return false
}

// writeProgram writes p's instructions as constants named prefix and the
// register number, one a line after indent; slots are the instructions'
// immediate slots and input(k) is the expression that loads input k.
func writeProgram(b *strings.Builder, indent string, p device.Program, prefix string, slots []int, input func(k int) string) {
	for i, in := range p.Code {
		fmt.Fprintf(b, "%sconst %s %s%d = %s;\n", indent, cType(in.Type), prefix, i, instrExpr(p, in, prefix, slots[i], input))
	}
}

// instrExpr returns the CUDA C expression of one validated instruction of
// p, whose registers are named prefix and their number; slot is its
// immediate's slot.
func instrExpr(p device.Program, in device.Instr, prefix string, slot int, input func(k int) string) string {
	arg := func(a int) string { return fmt.Sprintf("%s%d", prefix, in.Args[a]) }
	imm := fmt.Sprintf("p.imm[%d]", slot)
	switch in.Op {
	case device.OpInput:
		return input(in.Index)
	case device.OpConst:
		switch in.Type {
		case device.Int32:
			return "(int)" + imm
		case device.Bool:
			return "(" + imm + " != 0)"
		case device.Int64:
			return imm
		case device.Float64:
			return "sf_bits_f64((unsigned long long)" + imm + ")"
		}
		return "sf_bits_f32((unsigned)" + imm + ")"
	case device.OpIndex:
		return "(int)(unsigned)pos"
	case device.OpRandUniform:
		return "sf_rand_uniform((unsigned)" + imm + ", (unsigned)pos)"
	case device.OpRandNormal:
		return "sf_rand_normal((unsigned)" + imm + ", (unsigned)pos)"
	case device.OpCast:
		from := p.Code[in.Args[0]].Type
		return fmt.Sprintf("op_cast<%s, %s>(%s)", cType(in.Type), cType(from), arg(0))
	}
	args := make([]string, in.Op.Arity())
	for a := range args {
		args[a] = arg(a)
	}
	return OpFunction(in.Op) + "(" + strings.Join(args, ", ") + ")"
}
