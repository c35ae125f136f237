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
// inputs' addresses, offsets, output-dimension and reduced-dimension
// strides; the epilogue inputs' addresses, offsets and strides; the
// outputs' addresses and offsets; the immediates of both programs.
type rdLayout struct{ nin, nep, nout, nimm int }

// Word offsets of the parameter struct's fields.
func (l rdLayout) rn() int        { return 3 + ewMaxRank }
func (l rdLayout) inPtr() int     { return l.rn() + 2 + ewMaxRank }
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
	b := []byte{'r', byte(k.Op)}
	for _, vs := range [][]device.View{k.Inputs, k.EpilogueInputs, k.Outputs} {
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = append(b, byte(v.DType))
		}
	}
	return string(appendProgram(appendProgram(b, k.Prologue), k.Epilogue))
}

// rdCombine is how each reduction folds the prologue's value v into acc
// (Sum, Prod, Max, Min) or into best and arg (ArgMax, ArgMin: the first
// extreme value, a NaN counting as extreme), with the accumulator's start.
var rdCombine = map[device.ReduceOp]struct{ init, step string }{
	device.ReduceSum:  {"float acc = 0.0f;", "acc = acc + v;"},
	device.ReduceProd: {"float acc = 1.0f;", "acc = acc * v;"},
	device.ReduceMax:  {"float acc = -sf_inf();", "acc = op_max(acc, v);"},
	device.ReduceMin:  {"float acc = sf_inf();", "acc = op_min(acc, v);"},
	device.ReduceArgMax: {"float best = 0.0f;\n\t\tlong long arg = -1;",
		"if (arg < 0 || (!sf_is_nan(best) && (sf_is_nan(v) || v > best))) {\n\t\t\t\tbest = v;\n\t\t\t\targ = r;\n\t\t\t}"},
	device.ReduceArgMin: {"float best = 0.0f;\n\t\tlong long arg = -1;",
		"if (arg < 0 || (!sf_is_nan(best) && (sf_is_nan(v) || v < best))) {\n\t\t\t\tbest = v;\n\t\t\t\targ = r;\n\t\t\t}"},
}

// renderReduce returns the CUDA C of a validated reduction: one thread per
// output element (a grid-stride loop) walks the reduced elements in
// row-major order, runs the prologue on each (position: the output's times
// the reduced count plus the reduced one's), folds its value, then runs
// the epilogue (input 0: the result; position: the output's) and stores
// the outputs. Only the signature (rdSignature) shapes the text.
func renderReduce(k *device.ReduceKernel) string {
	pro, epi, nimm := rdSlots(k)
	l := rdLayout{nin: len(k.Inputs), nep: len(k.EpilogueInputs), nout: len(k.Outputs), nimm: nimm}
	var b strings.Builder
	b.WriteString(opsSource)
	fmt.Fprintf(&b, "\n// A generated %s reduction: %d inputs, %d epilogue inputs, %d outputs.\n", k.Op, l.nin, l.nep, l.nout)
	fmt.Fprintf(&b, "struct sf_rd_params {\n\tlong long n, rank, base;\n\tlong long shape[%d];\n", ewMaxRank)
	fmt.Fprintf(&b, "\tlong long rn, rrank;\n\tlong long rshape[%d];\n", ewMaxRank)
	ni, ne, no := max(l.nin, 1), max(l.nep, 1), max(l.nout, 1)
	fmt.Fprintf(&b, "\tunsigned long long in[%d];\n\tlong long in_off[%d];\n\tlong long in_stride[%d][%d];\n\tlong long in_rstride[%d][%d];\n",
		ni, ni, ni, ewMaxRank, ni, ewMaxRank)
	fmt.Fprintf(&b, "\tunsigned long long ep[%d];\n\tlong long ep_off[%d];\n\tlong long ep_stride[%d][%d];\n", ne, ne, ne, ewMaxRank)
	fmt.Fprintf(&b, "\tunsigned long long out[%d];\n\tlong long out_off[%d];\n\tlong long imm[%d];\n};\n\n", no, no, max(nimm, 1))
	fmt.Fprintf(&b, "extern \"C\" __global__ void %s(const sf_rd_params p) {\n", rdEntry)
	b.WriteString("\tconst long long step = (long long)gridDim.x * blockDim.x;\n")
	b.WriteString("\tfor (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += step) {\n")
	// Offsets of the output element in the inputs (e) and epilogue inputs (f).
	var decl []string
	for j := 0; j < l.nin; j++ {
		decl = append(decl, fmt.Sprintf("e%d = p.in_off[%d]", j, j))
	}
	for j := 0; j < l.nep; j++ {
		decl = append(decl, fmt.Sprintf("f%d = p.ep_off[%d]", j, j))
	}
	if len(decl) > 0 {
		fmt.Fprintf(&b, "\t\tlong long %s;\n\t\tlong long rest = i;\n", strings.Join(decl, ", "))
		b.WriteString("\t\tfor (int k = (int)p.rank - 1; k >= 0; k--) {\n")
		b.WriteString("\t\t\tconst long long x = rest % p.shape[k];\n\t\t\trest /= p.shape[k];\n")
		for j := 0; j < l.nin; j++ {
			fmt.Fprintf(&b, "\t\t\te%d += x * p.in_stride[%d][k];\n", j, j)
		}
		for j := 0; j < l.nep; j++ {
			fmt.Fprintf(&b, "\t\t\tf%d += x * p.ep_stride[%d][k];\n", j, j)
		}
		b.WriteString("\t\t}\n")
	}
	b.WriteString("\t\tconst long long opos = p.base + i;\n")
	c := rdCombine[k.Op]
	fmt.Fprintf(&b, "\t\t%s\n", c.init)
	b.WriteString("\t\tfor (long long r = 0; r < p.rn; r++) {\n")
	if l.nin > 0 {
		decl = decl[:0]
		for j := 0; j < l.nin; j++ {
			decl = append(decl, fmt.Sprintf("g%d = e%d", j, j))
		}
		fmt.Fprintf(&b, "\t\t\tlong long %s;\n\t\t\tlong long rr = r;\n", strings.Join(decl, ", "))
		b.WriteString("\t\t\tfor (int k = (int)p.rrank - 1; k >= 0; k--) {\n")
		b.WriteString("\t\t\t\tconst long long x = rr % p.rshape[k];\n\t\t\t\trr /= p.rshape[k];\n")
		for j := 0; j < l.nin; j++ {
			fmt.Fprintf(&b, "\t\t\t\tg%d += x * p.in_rstride[%d][k];\n", j, j)
		}
		b.WriteString("\t\t\t}\n")
	}
	if usesPosition(k.Prologue) {
		b.WriteString("\t\t\tconst long long pos = opos * p.rn + r;\n")
	}
	writeProgram(&b, "\t\t\t", k.Prologue, "a", pro, func(j int) string {
		return fmt.Sprintf("sf_ld_%s(p.in[%d], g%d)", dtypeSuffix[k.Inputs[j].DType], j, j)
	})
	fmt.Fprintf(&b, "\t\t\tconst float v = a%d;\n\t\t\t%s\n\t\t}\n", k.Prologue.Outputs[0], c.step)
	if usesPosition(k.Epilogue) {
		b.WriteString("\t\tconst long long pos = opos;\n")
	}
	result := "acc"
	if k.Op == device.ReduceArgMax || k.Op == device.ReduceArgMin {
		result = "(int)arg"
	}
	writeProgram(&b, "\t\t", k.Epilogue, "b", epi, func(j int) string {
		if j == 0 {
			return result
		}
		return fmt.Sprintf("sf_ld_%s(p.ep[%d], f%d)", dtypeSuffix[k.EpilogueInputs[j-1].DType], j-1, j-1)
	})
	for j, r := range k.Epilogue.Outputs {
		fmt.Fprintf(&b, "\t\tsf_st_%s(p.out[%d], p.out_off[%d] + i, b%d);\n", dtypeSuffix[k.Outputs[j].DType], j, j, r)
	}
	b.WriteString("\t}\n}\n")
	return b.String()
}
