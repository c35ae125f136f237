package cuda

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// rdEntry is the generated reduction kernel's entry point.
const rdEntry = "sf_reduce"

// rdLayout is the shape of a generated reduction kernel's parameter
// struct, 64-bit words: n (outputs this launch), rank, base, shape[8] of
// the output dimensions; rn, rrank, rshape[8] of the reduced ones; the
// block kernel's groups (outputs a block, 0 for the serial kernel), parts
// (blocks an output) and stage, and its scratch addresses (partial values
// and indices); the inputs' addresses, offsets, output-dimension and
// reduced-dimension strides; the epilogue inputs' addresses, offsets and
// strides; the outputs' addresses and offsets; the immediates of both
// programs.
type rdLayout struct{ nin, nep, nout, nimm int }

// Word offsets of the parameter struct's fields.
func (l rdLayout) rn() int        { return 3 + ewMaxRank }
func (l rdLayout) groups() int    { return l.rn() + 2 + ewMaxRank }
func (l rdLayout) parts() int     { return l.groups() + 1 }
func (l rdLayout) stage() int     { return l.groups() + 2 }
func (l rdLayout) scratch() int   { return l.groups() + 3 }
func (l rdLayout) inPtr() int     { return l.groups() + 5 }
func (l rdLayout) inOff() int     { return l.inPtr() + max(l.nin, 1) }
func (l rdLayout) inStride() int  { return l.inOff() + max(l.nin, 1) }
func (l rdLayout) inRStride() int { return l.inStride() + max(l.nin, 1)*ewMaxRank }
func (l rdLayout) epPtr() int     { return l.inRStride() + max(l.nin, 1)*ewMaxRank }
func (l rdLayout) epOff() int     { return l.epPtr() + max(l.nep, 1) }
func (l rdLayout) epStride() int  { return l.epOff() + max(l.nep, 1) }
func (l rdLayout) outPtr() int    { return l.epStride() + max(l.nep, 1)*ewMaxRank }
func (l rdLayout) outOff() int    { return l.outPtr() + max(l.nout, 1) }
func (l rdLayout) imm() int       { return l.outOff() + max(l.nout, 1) }
func (l rdLayout) words() int     { return l.imm() + max(l.nimm, 1) }

// rdSlots returns the immediate slots of a reduction's prologue and
// epilogue (the epilogue's after the prologue's) and their count.
func rdSlots(k *device.ReduceKernel) (pro, epi []int, n int) {
	pro, n = immSlotsFrom(k.Prologue, 0)
	epi, n = immSlotsFrom(k.Epilogue, n)
	return pro, epi, n
}

// appendProgram appends what a rendering depends on of p (not its
// constants or seeds) to a signature.
func appendProgram(b []byte, p device.Program) []byte {
	put := func(vs ...int) {
		for _, v := range vs {
			b = binary.AppendUvarint(b, uint64(v))
		}
	}
	put(len(p.Code))
	for _, in := range p.Code {
		put(int(in.Op), int(in.Type), in.Index)
		for a := 0; a < in.Op.Arity(); a++ {
			put(int(in.Args[a]))
		}
	}
	put(len(p.Outputs))
	for _, r := range p.Outputs {
		put(int(r))
	}
	return b
}

// rdSignature is what a generated reduction kernel depends on: the
// reduction, both programs without constants and seeds, and the dtypes of
// every view.
func rdSignature(k *device.ReduceKernel) string {
	return string(appendRdSignature(nil, k))
}

// appendRdSignature appends k's signature (rdSignature) to b.
func appendRdSignature(b []byte, k *device.ReduceKernel) []byte {
	b = append(b, 'r', byte(k.Op))
	for _, vs := range [][]device.View{k.Inputs, k.EpilogueInputs, k.Outputs} {
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = append(b, byte(v.DType))
		}
	}
	return appendProgram(appendProgram(b, k.Prologue), k.Epilogue)
}

// appendRdKey appends to b everything of k but its buffers: the
// signature, the output and reduced shapes, each view's offset, shape and
// strides, and both programs' constants and seeds, on which alone
// validation but for the buffer checks, planning and the modules depend.
func appendRdKey(b []byte, k *device.ReduceKernel) []byte {
	b = appendInts(appendInts(appendRdSignature(b, k), k.OutShape), k.RedShape)
	return appendImms(appendViewsKey(b, k.Inputs, k.EpilogueInputs, k.Outputs), k.Prologue, k.Epilogue)
}

// rdInit is each reduction's accumulator start: the identity of Sum, Prod,
// Max and Min; any value for ArgMax and ArgMin, whose index starts at -1.
var rdInit = map[device.ReduceOp]string{
	device.ReduceSum: "0.0f", device.ReduceProd: "1.0f", device.ReduceMax: "-sf_inf()", device.ReduceMin: "sf_inf()",
	device.ReduceArgMax: "0.0f", device.ReduceArgMin: "0.0f",
}

// rdCombine is the body of sf_rd_combine(acc, arg, v, a), which folds the
// value v of reduced element a into the accumulator: Sum and Prod in
// float32, Max and Min propagating NaN; ArgMax and ArgMin keep in (acc,
// arg) the extreme value with the smallest index, a NaN counting as
// extreme, and an index below zero standing for no element. Folding
// partial results of disjoint element sets in any order gives the first
// extreme of their union, which the block kernel's tree relies on.
var rdCombine = map[device.ReduceOp]string{
	device.ReduceSum:    "acc = acc + v;",
	device.ReduceProd:   "acc = acc * v;",
	device.ReduceMax:    "acc = op_max(acc, v);",
	device.ReduceMin:    "acc = op_min(acc, v);",
	device.ReduceArgMax: rdArgCombine(">"),
	device.ReduceArgMin: rdArgCombine("<"),
}

// rdArgCombine is rdCombine's body for an arg reduction whose better value
// compares with cmp.
func rdArgCombine(cmp string) string {
	return "if (a >= 0 && (arg < 0 || (sf_is_nan(v) ? (!sf_is_nan(acc) || a < arg)\n\t\t\t\t: (!sf_is_nan(acc) && (v " + cmp +
		" acc || (v == acc && a < arg)))))) {\n\t\tacc = v;\n\t\targ = a;\n\t}"
}

// isArgReduce reports whether op's result is an index.
func isArgReduce(op device.ReduceOp) bool {
	return op == device.ReduceArgMax || op == device.ReduceArgMin
}

// writeRdHeader writes what every reduction kernel of k starts with:
// ops.cuh, the parameter struct of layout l and sf_rd_combine.
func writeRdHeader(b *strings.Builder, k *device.ReduceKernel, l rdLayout) {
	b.WriteString(opsSource)
	fmt.Fprintf(b, "\n// A generated %s reduction: %d inputs, %d epilogue inputs, %d outputs.\n", k.Op, l.nin, l.nep, l.nout)
	fmt.Fprintf(b, "struct sf_rd_params {\n\tlong long n, rank, base;\n\tlong long shape[%d];\n", ewMaxRank)
	fmt.Fprintf(b, "\tlong long rn, rrank;\n\tlong long rshape[%d];\n", ewMaxRank)
	b.WriteString("\tlong long groups, parts, stage;\n\tunsigned long long scratch, scratch_arg;\n")
	ni, ne, no := max(l.nin, 1), max(l.nep, 1), max(l.nout, 1)
	fmt.Fprintf(b, "\tunsigned long long in[%d];\n\tlong long in_off[%d];\n\tlong long in_stride[%d][%d];\n\tlong long in_rstride[%d][%d];\n",
		ni, ni, ni, ewMaxRank, ni, ewMaxRank)
	fmt.Fprintf(b, "\tunsigned long long ep[%d];\n\tlong long ep_off[%d];\n\tlong long ep_stride[%d][%d];\n", ne, ne, ne, ewMaxRank)
	fmt.Fprintf(b, "\tunsigned long long out[%d];\n\tlong long out_off[%d];\n\tlong long imm[%d];\n};\n\n", no, no, max(l.nimm, 1))
	fmt.Fprintf(b, "SF_FN void sf_rd_combine(float &acc, long long &arg, float v, long long a) {\n\t%s\n}\n\n", rdCombine[k.Op])
}

// writeOutOffsets writes, after indent, the offsets of output element idx
// in the first nin inputs (e0, e1, …) and the first nep epilogue inputs
// (f0, f1, …) of a reduction's parameters, or of an elementwise kernel's
// (nep 0): one division per output dimension.
func writeOutOffsets(b *strings.Builder, indent, idx string, nin, nep int) {
	var decl []string
	for j := 0; j < nin; j++ {
		decl = append(decl, fmt.Sprintf("e%d = p.in_off[%d]", j, j))
	}
	for j := 0; j < nep; j++ {
		decl = append(decl, fmt.Sprintf("f%d = p.ep_off[%d]", j, j))
	}
	if len(decl) == 0 {
		return
	}
	fmt.Fprintf(b, "%slong long %s;\n", indent, strings.Join(decl, ", "))
	fmt.Fprintf(b, "%sfor (long long k = p.rank - 1, rest = %s; k >= 0; k--) {\n", indent, idx)
	fmt.Fprintf(b, "%s\tconst long long x = rest %% p.shape[k];\n%s\trest /= p.shape[k];\n", indent, indent)
	for j := 0; j < nin; j++ {
		fmt.Fprintf(b, "%s\te%d += x * p.in_stride[%d][k];\n", indent, j, j)
	}
	for j := 0; j < nep; j++ {
		fmt.Fprintf(b, "%s\tf%d += x * p.ep_stride[%d][k];\n", indent, j, j)
	}
	fmt.Fprintf(b, "%s}\n", indent)
}

// writeRdElement writes, after indent, the prologue at reduced element r
// of the output at position opos whose input offsets are e0, e1, …, with
// its value in v. A single reduced dimension needs no division.
func writeRdElement(b *strings.Builder, indent string, k *device.ReduceKernel, pro []int) {
	if n := len(k.Inputs); n > 0 {
		var decl, one, many []string
		for j := 0; j < n; j++ {
			decl = append(decl, fmt.Sprintf("g%d = e%d", j, j))
			one = append(one, fmt.Sprintf("%s\tg%d += r * p.in_rstride[%d][0];\n", indent, j, j))
			many = append(many, fmt.Sprintf("%s\t\tg%d += x * p.in_rstride[%d][k];\n", indent, j, j))
		}
		fmt.Fprintf(b, "%slong long %s;\n%sif (p.rrank == 1) {\n%s", indent, strings.Join(decl, ", "), indent, strings.Join(one, ""))
		fmt.Fprintf(b, "%s} else {\n%s\tfor (long long k = p.rrank - 1, rr = r; k >= 0; k--) {\n", indent, indent)
		fmt.Fprintf(b, "%s\t\tconst long long x = rr %% p.rshape[k];\n%s\t\trr /= p.rshape[k];\n%s", indent, indent, strings.Join(many, ""))
		fmt.Fprintf(b, "%s\t}\n%s}\n", indent, indent)
	}
	if usesPosition(k.Prologue) {
		fmt.Fprintf(b, "%sconst long long pos = opos * p.rn + r;\n", indent)
	}
	writeProgram(b, indent, k.Prologue, "a", pro, func(j int) string {
		return fmt.Sprintf("sf_ld_%s(p.in[%d], g%d)", dtypeSuffix[k.Inputs[j].DType], j, j)
	})
	fmt.Fprintf(b, "%sconst float v = a%d;\n", indent, k.Prologue.Outputs[0])
}

// rdUnroll is how many elements a thread's reduction loop loads before
// folding them, so that their loads overlap.
const rdUnroll = 4

// writeRdLoop writes, after indent, the fold into acc and arg of reduced
// elements first, first + step, … below p.rn of the output at opos whose
// input offsets are e0, e1, …: rdUnroll elements at a time (each
// writeRdElement in its own scope, so that the loads of all come before
// any fold), then one at a time; always folded in increasing order.
func writeRdLoop(b *strings.Builder, indent string, k *device.ReduceKernel, pro []int, first, step string) {
	fmt.Fprintf(b, "%sconst long long sf_step = %s;\n%slong long sf_r = %s;\n", indent, step, indent, first)
	fmt.Fprintf(b, "%sfor (; sf_r + %d * sf_step < p.rn; sf_r += %d * sf_step) {\n%s\tfloat sf_v[%d];\n",
		indent, rdUnroll-1, rdUnroll, indent, rdUnroll)
	for u := 0; u < rdUnroll; u++ {
		fmt.Fprintf(b, "%s\t{\n%s\t\tconst long long r = sf_r + %d * sf_step;\n", indent, indent, u)
		writeRdElement(b, indent+"\t\t", k, pro)
		fmt.Fprintf(b, "%s\t\tsf_v[%d] = v;\n%s\t}\n", indent, u, indent)
	}
	for u := 0; u < rdUnroll; u++ {
		fmt.Fprintf(b, "%s\tsf_rd_combine(acc, arg, sf_v[%d], sf_r + %d * sf_step);\n", indent, u, u)
	}
	fmt.Fprintf(b, "%s}\n%sfor (; sf_r < p.rn; sf_r += sf_step) {\n%s\tconst long long r = sf_r;\n", indent, indent, indent)
	writeRdElement(b, indent+"\t", k, pro)
	fmt.Fprintf(b, "%s\tsf_rd_combine(acc, arg, v, r);\n%s}\n", indent, indent)
}

// writeRdEpilogue writes, after indent, the epilogue of output element idx
// at position opos (input 0: acc, or arg as int32 for an arg reduction;
// the epilogue inputs at offsets f0, f1, …) and the stores of its outputs.
func writeRdEpilogue(b *strings.Builder, indent, idx string, k *device.ReduceKernel, epi []int) {
	if usesPosition(k.Epilogue) {
		fmt.Fprintf(b, "%sconst long long pos = opos;\n", indent)
	}
	result := "acc"
	if isArgReduce(k.Op) {
		result = "(int)arg"
	}
	writeProgram(b, indent, k.Epilogue, "b", epi, func(j int) string {
		if j == 0 {
			return result
		}
		return fmt.Sprintf("sf_ld_%s(p.ep[%d], f%d)", dtypeSuffix[k.EpilogueInputs[j-1].DType], j-1, j-1)
	})
	for j, r := range k.Epilogue.Outputs {
		fmt.Fprintf(b, "%ssf_st_%s(p.out[%d], p.out_off[%d] + %s, b%d);\n", indent, dtypeSuffix[k.Outputs[j].DType], j, j, idx, r)
	}
}

// renderReduce returns the CUDA C of a validated reduction's serial
// kernel, for many outputs of few elements: one thread per output element
// (a grid-stride loop) walks the reduced elements in row-major order, runs
// the prologue on each (position: the output's times the reduced count
// plus the reduced one's), folds its value, then runs the epilogue (input
// 0: the result; position: the output's) and stores the outputs. Only the
// signature (rdSignature) shapes the text.
func renderReduce(k *device.ReduceKernel) string {
	pro, epi, l := rdPrograms(k)
	var b strings.Builder
	writeRdHeader(&b, k, l)
	fmt.Fprintf(&b, "extern \"C\" __global__ void %s(const sf_rd_params p) {\n", rdEntry)
	b.WriteString("\tconst long long step = (long long)gridDim.x * blockDim.x;\n")
	b.WriteString("\tfor (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += step) {\n")
	writeOutOffsets(&b, "\t\t", "i", l.nin, l.nep)
	fmt.Fprintf(&b, "\t\tconst long long opos = p.base + i;\n\t\tfloat acc = %s;\n\t\tlong long arg = -1;\n", rdInit[k.Op])
	writeRdLoop(&b, "\t\t", k, pro, "0", "1")
	writeRdEpilogue(&b, "\t\t", "i", k, epi)
	b.WriteString("\t}\n}\n")
	return b.String()
}

// rdPrograms returns the immediate slots of k's prologue and epilogue and
// the layout of its parameters.
func rdPrograms(k *device.ReduceKernel) (pro, epi []int, l rdLayout) {
	pro, epi, nimm := rdSlots(k)
	return pro, epi, rdLayout{nin: len(k.Inputs), nep: len(k.EpilogueInputs), nout: len(k.Outputs), nimm: nimm}
}
