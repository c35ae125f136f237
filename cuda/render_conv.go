package cuda

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// cvEntry is the generated convolution kernel's entry point.
const cvEntry = "sf_conv"

// cvMode is what distinguishes the three convolution modes in the
// generated kernel: the names and sizes of the result's indices, the loop
// over the product's depth outside the spatial loops (with the element
// offsets ea and eb of A and B it fixes), the spatial loops with their
// guards, and the spatial indices A and B are read at.
type cvMode struct {
	name       string
	lead       [2]string // the result's first two indices
	leadSize   [2]string
	resSpatial string // prefix of the result's spatial indices
	resField   string // the geometry field of their sizes
	setup      string // lines after the result's indices are known
	outer      string // the depth loop's head and its lines
	ea, eb     string
	loop       func(d int, in string) string
	aAt, bAt   string // prefixes of the spatial indices A and B are read at
}

// tapLine is the input position x<d> that output position y<d>'s window
// tap k<d> reads, skipping the loop's iteration when it is padding.
func tapLine(d int, in string) string {
	return fmt.Sprintf("%sconst long long x%d = y%d * p.g_s[%d] - p.g_p[%d] + k%d * p.g_d[%d];\n", in, d, d, d, d, d, d) +
		fmt.Sprintf("%sif (x%d < 0 || x%d >= p.g_in[%d]) continue;\n", in, d, d, d)
}

// forLine is a for statement over v<d> from 0 to p.field[d].
func forLine(v string, d int, field string) string {
	return fmt.Sprintf("for (long long %s%d = 0; %s%d < p.%s[%d]; %s%d++) {\n", v, d, v, d, field, d, v, d)
}

// cvModes are the modes' kernels, with X of [N, C, in...], W of [O, C/G,
// k...] and Y of [N, O, out...] (cg = C/G, og = O/G):
//
//	forward:         Y[n, o, y] = sum over c < cg, taps k of X[n, g*cg+c, y*s-p+k*d] W[o, c, k]
//	backward input:  dX[n, ci, x] = sum over q < og, taps k with x = y*s-p+k*d of dY[n, g*og+q, y] W[g*og+q, c, k]
//	backward weight: dW[o, c, k] = sum over n, outputs y of dY[n, o, y] X[n, g*cg+c, y*s-p+k*d]
//
// where g is the group of o (o / og) or of ci (ci / cg), and taps in the
// padding add nothing.
var cvModes = map[device.ConvMode]cvMode{
	device.ConvForward: {
		name: "forward", lead: [2]string{"nn", "o"}, leadSize: [2]string{"p.N", "p.O"}, resSpatial: "y", resField: "g_out",
		setup: "\t\tconst long long g = o / p.og;\n",
		outer: "\t\tfor (long long c = 0; c < p.cg; c++) {\n",
		ea:    "p.a_off + nn * p.a_st[0] + (g * p.cg + c) * p.a_st[1]",
		eb:    "p.b_off + o * p.b_st[0] + c * p.b_st[1]",
		loop:  func(d int, in string) string { return forLine("k", d, "g_k") + tapLine(d, in) },
		aAt:   "x", bAt: "k",
	},
	device.ConvBackwardInput: {
		name: "backward-input", lead: [2]string{"nn", "ci"}, leadSize: [2]string{"p.N", "p.C"}, resSpatial: "x", resField: "g_in",
		setup: "\t\tconst long long g = ci / p.cg, c = ci % p.cg;\n",
		outer: "\t\tfor (long long q = 0; q < p.og; q++) {\n\t\t\tconst long long o = g * p.og + q;\n",
		ea:    "p.a_off + nn * p.a_st[0] + o * p.a_st[1]",
		eb:    "p.b_off + o * p.b_st[0] + c * p.b_st[1]",
		loop: func(d int, in string) string {
			// The output y<d> whose tap k<d> reads x<d>, if any.
			return forLine("k", d, "g_k") +
				// A stride of one (the common case) needs no division.
				fmt.Sprintf("%sconst long long t%d = x%d + p.g_p[%d] - k%d * p.g_d[%d];\n", in, d, d, d, d, d) +
				fmt.Sprintf("%sif (t%d < 0 || (p.g_s[%d] != 1 && t%d %% p.g_s[%d] != 0)) continue;\n", in, d, d, d, d) +
				fmt.Sprintf("%sconst long long y%d = p.g_s[%d] == 1 ? t%d : t%d / p.g_s[%d];\n", in, d, d, d, d, d) +
				fmt.Sprintf("%sif (y%d >= p.g_out[%d]) continue;\n", in, d, d)
		},
		aAt: "y", bAt: "k",
	},
	device.ConvBackwardWeight: {
		name: "backward-weight", lead: [2]string{"o", "c"}, leadSize: [2]string{"p.O", "p.cg"}, resSpatial: "k", resField: "g_k",
		setup: "\t\tconst long long ci = o / p.og * p.cg + c;\n",
		outer: "\t\tfor (long long nn = 0; nn < p.N; nn++) {\n",
		ea:    "p.a_off + nn * p.a_st[0] + o * p.a_st[1]",
		eb:    "p.b_off + nn * p.b_st[0] + ci * p.b_st[1]",
		loop:  func(d int, in string) string { return forLine("y", d, "g_out") + tapLine(d, in) },
		aAt:   "y", bAt: "x",
	},
}

// cvParams is the parameter struct of a convolution kernel with nep
// epilogue inputs, nout outputs and nimm immediates: the result's element
// count n, the sizes and group widths, the geometry, A and B, the epilogue
// inputs (addresses, offsets, winViewRank strides each), the outputs
// (addresses, offsets) and the immediates.
func cvParams(nep, nout, nimm int) paramStruct {
	s := paramStruct{{"n", 0}, {"N", 0}, {"C", 0}, {"O", 0}, {"cg", 0}, {"og", 0}}
	s = append(append(append(s, geomFields...), viewFields("a")...), viewFields("b")...)
	ne, no := max(nep, 1), max(nout, 1)
	return append(s, paramField{"ep", ne}, paramField{"ep_off", ne}, paramField{"ep_st", ne * winViewRank},
		paramField{"dst", no}, paramField{"dst_off", no}, paramField{"imm", max(nimm, 1)})
}

// cvSignature is what a generated convolution depends on: the mode, the
// spatial rank, the epilogue without constants and seeds, and the dtypes
// of the epilogue inputs and outputs (A and B are Float32).
func cvSignature(k *device.ConvKernel) string {
	b := []byte{'c', byte(k.Mode), byte(len(k.Geom.In)), 0}
	if cvBlockPerResult(k) {
		b[3] = 1
	}
	for _, vs := range [][]device.View{k.EpilogueInputs, k.Outputs} {
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = append(b, byte(v.DType))
		}
	}
	return string(appendProgram(b, k.Epilogue))
}

// cvBlock is the threads of a block of the block-per-result kernel.
const cvBlock = 256

// cvBlockSum is the shortest sum per result element that the
// backward-weight convolution splits among a block's threads: a weight
// gradient has few elements, each a sum over the batch and every output
// position, which one thread apiece would walk with most of the GPU idle.
const cvBlockSum = 2 * cvBlock

// cvBlockPerResult reports whether k runs the block-per-result kernel.
func cvBlockPerResult(k *device.ConvKernel) bool {
	return k.Mode == device.ConvBackwardWeight && k.Geom.N*device.NumElements(k.Geom.Out) >= cvBlockSum
}

// renderConv returns the CUDA C of a validated convolution: one thread per
// result element (a grid-stride loop) sums the products of its mode (see
// cvModes) in float32 in a fixed order, reading A and B through their
// strides, then runs the epilogue (input 0: the sum; position: the
// result's) and stores the outputs. A backward-weight convolution with long
// sums (cvBlockPerResult) gives each result element a block instead, whose
// threads split the sum and add their parts in a shared-memory tree. Only
// the signature shapes the text.
func renderConv(k *device.ConvKernel) string {
	nsp := len(k.Geom.In)
	slots, nimm := immSlots(k.Epilogue)
	m := cvModes[k.Mode]
	var b strings.Builder
	b.WriteString(opsSource)
	if cvBlockPerResult(k) {
		b.WriteString(sharedMacro)
	}
	fmt.Fprintf(&b, "\n// A generated %s convolution over %d spatial dimensions: %d epilogue inputs, %d outputs.\n",
		m.name, nsp, len(k.EpilogueInputs), len(k.Outputs))
	b.WriteString(cvParams(len(k.EpilogueInputs), len(k.Outputs), nimm).decl("sf_cv_params"))
	fmt.Fprintf(&b, "extern \"C\" __global__ void %s(const sf_cv_params p) {\n", cvEntry)
	if cvBlockPerResult(k) {
		writeConvBlockPerResult(&b, k, m, slots)
		return b.String()
	}
	b.WriteString(gridLoop)
	res := append(m.lead[:], spatial(m.resSpatial, nsp)...)
	writeSplit(&b, "\t\t", "i", res, append(m.leadSize[:], geomSizes(m.resField, nsp)...))
	b.WriteString(m.setup)
	b.WriteString("\t\tfloat acc = 0.0f;\n")
	b.WriteString(m.outer)
	fmt.Fprintf(&b, "\t\t\tconst long long ea = %s;\n\t\t\tconst long long eb = %s;\n", m.ea, m.eb)
	in := openLoops(&b, "\t\t\t", nsp, m.loop)
	fmt.Fprintf(&b, "%sacc += sf_ld_f32((unsigned long long)p.a, %s) * sf_ld_f32((unsigned long long)p.b, %s);\n",
		in, offsetExpr("ea", "a_st", 2, spatial(m.aAt, nsp)), offsetExpr("eb", "b_st", 2, spatial(m.bAt, nsp)))
	closeLoops(&b, "\t\t\t", nsp)
	b.WriteString("\t\t}\n")
	writeWindowEpilogue(&b, k.Epilogue, slots, k.EpilogueInputs, k.Outputs, res)
	b.WriteString("\t}\n}\n")
	return b.String()
}

// writeConvBlockPerResult writes the body of the backward-weight kernel in
// which a block computes each result element: its threads take the sum's
// terms (batch image and output position, row-major) a block apart, and a
// shared-memory tree adds their parts before thread 0 runs the epilogue.
func writeConvBlockPerResult(b *strings.Builder, k *device.ConvKernel, m cvMode, slots []int) {
	nsp := len(k.Geom.In)
	fmt.Fprintf(b, "\t__shared__ float sf_part[%d];\n", cvBlock)
	b.WriteString("\tlong long terms = p.N;\n")
	for d := 0; d < nsp; d++ {
		fmt.Fprintf(b, "\tterms *= p.g_out[%d];\n", d)
	}
	b.WriteString("\tfor (long long i = blockIdx.x; i < p.n; i += gridDim.x) {\n")
	res := append(m.lead[:], spatial(m.resSpatial, nsp)...)
	writeSplit(b, "\t\t", "i", res, append(m.leadSize[:], geomSizes(m.resField, nsp)...))
	b.WriteString(m.setup)
	b.WriteString("\t\tfloat part = 0.0f;\n")
	// The terms' loop, with 32-bit divisions where every count fits (a
	// 64-bit division costs several times more, once per term).
	names, sizes := append([]string{"nn"}, spatial("y", nsp)...), append([]string{"p.N"}, geomSizes("g_out", nsp)...)
	for _, narrow := range []bool{true, false} {
		if narrow {
			b.WriteString("\t\tif (terms <= 0x7fffffff) {\n")
		} else {
			b.WriteString("\t\t} else {\n")
		}
		b.WriteString("\t\tfor (long long t = threadIdx.x; t < terms; t += blockDim.x) {\n")
		if narrow {
			writeSplit32(b, "\t\t\t", "t", names, sizes)
		} else {
			writeSplit(b, "\t\t\t", "t", names, sizes)
		}
		for d := 0; d < nsp; d++ {
			b.WriteString("\t\t\t" + tapLine(d, "\t\t\t"))
		}
		fmt.Fprintf(b, "\t\t\tconst long long ea = %s;\n\t\t\tconst long long eb = %s;\n", m.ea, m.eb)
		fmt.Fprintf(b, "\t\t\tpart += sf_ld_f32((unsigned long long)p.a, %s) * sf_ld_f32((unsigned long long)p.b, %s);\n",
			offsetExpr("ea", "a_st", 2, spatial(m.aAt, nsp)), offsetExpr("eb", "b_st", 2, spatial(m.bAt, nsp)))
		b.WriteString("\t\t}\n")
	}
	b.WriteString("\t\t}\n")
	b.WriteString("\t\tsf_part[threadIdx.x] = part;\n\t\t__syncthreads();\n")
	b.WriteString("\t\tfor (unsigned half = blockDim.x / 2; half > 0; half /= 2) {\n")
	b.WriteString("\t\t\tif (threadIdx.x < half) sf_part[threadIdx.x] += sf_part[threadIdx.x + half];\n\t\t\t__syncthreads();\n\t\t}\n")
	b.WriteString("\t\tif (threadIdx.x == 0) {\n\t\tconst float acc = sf_part[0];\n")
	writeWindowEpilogue(b, k.Epilogue, slots, k.EpilogueInputs, k.Outputs, res)
	b.WriteString("\t\t}\n\t\t__syncthreads();\n\t}\n}\n")
}

// writeWindowEpilogue writes the epilogue of a result element at position
// i with multi-index res: input 0 is acc, input j+1 is epilogue input j
// read through its strides; output j is stored at dst_off[j] + i.
func writeWindowEpilogue(b *strings.Builder, p device.Program, slots []int, inputs, outputs []device.View, res []string) {
	for j := range inputs {
		fmt.Fprintf(b, "\t\tconst long long f%d = %s;\n", j, offsetExpr(fmt.Sprintf("p.ep_off[%d]", j), "ep_st", j*winViewRank, res))
	}
	if usesPosition(p) {
		b.WriteString("\t\tconst long long pos = i;\n")
	}
	writeProgram(b, "\t\t", p, "r", slots, func(j int) string {
		if j == 0 {
			return "acc"
		}
		return fmt.Sprintf("sf_ld_%s((unsigned long long)p.ep[%d], f%d)", dtypeSuffix[inputs[j-1].DType], j-1, j-1)
	})
	for j, r := range p.Outputs {
		fmt.Fprintf(b, "\t\tsf_st_%s((unsigned long long)p.dst[%d], p.dst_off[%d] + i, r%d);\n", dtypeSuffix[outputs[j].DType], j, j, r)
	}
}

// planConv returns the parameter words of a validated convolution's one
// launch (addresses in ptrs: A, B, the epilogue inputs, the outputs), or
// nil when its result is empty. It fails when the parameters do not fit
// the kernel parameter space.
func planConv(k *device.ConvKernel, ptrs []uint64) ([]int64, error) {
	slots, nimm := immSlots(k.Epilogue)
	s := cvParams(len(k.EpilogueInputs), len(k.Outputs), nimm)
	if err := checkParams("conv", s); err != nil {
		return nil, err
	}
	n := device.NumElements(k.ResultShape())
	if n == 0 {
		return nil, nil
	}
	g := k.Geom
	w := make([]int64, s.words())
	for _, f := range []struct {
		name string
		v    int
	}{{"n", n}, {"N", g.N}, {"C", g.C}, {"O", g.O}, {"cg", g.C / g.Groups}, {"og", g.O / g.Groups}} {
		w[s.at(f.name)] = int64(f.v)
	}
	putGeom(w, s, g)
	putView(w, s, "a", k.A, ptrs[0])
	putView(w, s, "b", k.B, ptrs[1])
	for j, v := range k.EpilogueInputs {
		w[s.at("ep")+j] = int64(ptrs[2+j])
		w[s.at("ep_off")+j] = int64(v.Offset)
		for d, st := range v.Strides {
			w[s.at("ep_st")+j*winViewRank+d] = int64(st)
		}
	}
	for j, v := range k.Outputs {
		w[s.at("dst")+j] = int64(ptrs[2+len(k.EpilogueInputs)+j])
		w[s.at("dst_off")+j] = int64(v.Offset)
	}
	for i, in := range k.Epilogue.Code {
		if slots[i] >= 0 {
			w[s.at("imm")+slots[i]] = immWord(in)
		}
	}
	return w, nil
}
