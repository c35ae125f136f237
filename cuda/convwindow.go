package cuda

import (
	"fmt"
	"strings"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// The generated convolution and pooling kernels share this file: their
// parameter structs (named 64-bit words), the window geometry words, and
// the helpers that write the C of multi-index decoding, strided offsets
// and loops over the spatial dimensions.

// winViewRank is the rank of every view a window kernel reads through its
// strides ([N, C, spatial...] with at most three spatial dimensions); a
// view of lower rank leaves its last strides unused.
const winViewRank = 5

// paramField is one field of a generated kernel's parameter struct: n
// 64-bit words (n = 0: one scalar word, declared without brackets).
type paramField struct {
	name string
	n    int
}

// paramStruct is a generated kernel's parameter struct, its fields in
// order; the C declaration (decl) and the words the host fills (at) come
// from this one list, so they cannot disagree.
type paramStruct []paramField

// decl returns the C declaration of the struct named name.
func (s paramStruct) decl(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "struct %s {\n", name)
	for _, f := range s {
		if f.n == 0 {
			fmt.Fprintf(&b, "\tlong long %s;\n", f.name)
		} else {
			fmt.Fprintf(&b, "\tlong long %s[%d];\n", f.name, f.n)
		}
	}
	b.WriteString("};\n\n")
	return b.String()
}

// at returns the word offset of field name.
func (s paramStruct) at(name string) int {
	off := 0
	for _, f := range s {
		if f.name == name {
			return off
		}
		off += max(f.n, 1)
	}
	panic("cuda: no parameter field " + name)
}

// words returns the struct's size in 64-bit words.
func (s paramStruct) words() int {
	n := 0
	for _, f := range s {
		n += max(f.n, 1)
	}
	return n
}

// geomFields are the window geometry's fields, three words each (the
// spatial dimensions beyond the kernel's rank are unused): input, window,
// output sizes, stride, padding and dilation.
var geomFields = paramStruct{{"g_in", 3}, {"g_k", 3}, {"g_out", 3}, {"g_s", 3}, {"g_p", 3}, {"g_d", 3}}

// viewFields are the fields of a view read through its strides: its
// address, element offset and winViewRank strides, named prefix, prefix_off
// and prefix_st.
func viewFields(prefix string) paramStruct {
	return paramStruct{{prefix, 0}, {prefix + "_off", 0}, {prefix + "_st", winViewRank}}
}

// putGeom fills the geometry words of g into w laid out by s (adaptive
// pooling has only In and Out).
func putGeom(w []int64, s paramStruct, g device.ConvGeometry) {
	for fi, vals := range [][]int{g.In, g.Kernel, g.Out, g.Stride, g.Padding, g.Dilation} {
		for d, v := range vals {
			w[s.at(geomFields[fi].name)+d] = int64(v)
		}
	}
}

// putView fills the address, offset and strides of view v (at address
// ptr) into w's fields named prefix.
func putView(w []int64, s paramStruct, prefix string, v device.View, ptr uint64) {
	w[s.at(prefix)] = int64(ptr)
	w[s.at(prefix+"_off")] = int64(v.Offset)
	for d, st := range v.Strides {
		w[s.at(prefix+"_st")+d] = int64(st)
	}
}

// spatial returns the names prefix0, prefix1, ... of nsp spatial indices.
func spatial(prefix string, nsp int) []string {
	names := make([]string, nsp)
	for d := range names {
		names[d] = fmt.Sprintf("%s%d", prefix, d)
	}
	return names
}

// geomSizes returns the C expressions of a geometry field's nsp sizes.
func geomSizes(field string, nsp int) []string {
	sizes := make([]string, nsp)
	for d := range sizes {
		sizes[d] = fmt.Sprintf("p.%s[%d]", field, d)
	}
	return sizes
}

// writeSplit writes, after indent, constants names (row-major: the last
// varies fastest) holding the multi-index of the linear position pos in
// the shape sizes (C expressions).
func writeSplit(b *strings.Builder, indent, pos string, names, sizes []string) {
	fmt.Fprintf(b, "%slong long rest = %s;\n", indent, pos)
	for i := len(names) - 1; i > 0; i-- {
		fmt.Fprintf(b, "%sconst long long %s = rest %% %s;\n%srest /= %s;\n", indent, names[i], sizes[i], indent, sizes[i])
	}
	fmt.Fprintf(b, "%sconst long long %s = rest;\n", indent, names[0])
}

// writeSplit32 is writeSplit with 32-bit divisions, for a position and
// sizes below 2^31; the indices are still declared long long.
func writeSplit32(b *strings.Builder, indent, pos string, names, sizes []string) {
	fmt.Fprintf(b, "%sunsigned rest = (unsigned)(%s);\n", indent, pos)
	for i := len(names) - 1; i > 0; i-- {
		fmt.Fprintf(b, "%sconst long long %s = rest %% (unsigned)(%s);\n%srest /= (unsigned)(%s);\n", indent, names[i], sizes[i], indent, sizes[i])
	}
	fmt.Fprintf(b, "%sconst long long %s = rest;\n", indent, names[0])
}

// offsetExpr is the C expression of base plus each index times the view's
// stride (field st) along dimension first+i.
func offsetExpr(base, st string, first int, idx []string) string {
	parts := []string{base}
	for i, x := range idx {
		parts = append(parts, fmt.Sprintf("%s * p.%s[%d]", x, st, first+i))
	}
	return strings.Join(parts, " + ")
}

// rowMajorExpr is the C expression of the row-major position of idx in
// the sizes (C expressions).
func rowMajorExpr(idx, sizes []string) string {
	e := idx[0]
	for i := 1; i < len(idx); i++ {
		e = fmt.Sprintf("(%s) * %s + %s", e, sizes[i], idx[i])
	}
	return e
}

// openLoops writes one nested loop per spatial dimension d, each opened by
// head(d) (a for statement and its guard lines, given the indent inside
// it), and returns the indent inside the innermost; closeLoops ends them.
func openLoops(b *strings.Builder, indent string, nsp int, head func(d int, in string) string) string {
	for d := 0; d < nsp; d++ {
		b.WriteString(indent + head(d, indent+"\t"))
		indent += "\t"
	}
	return indent
}

// closeLoops closes nsp loops opened by openLoops at indent.
func closeLoops(b *strings.Builder, indent string, nsp int) {
	for d := nsp - 1; d >= 0; d-- {
		fmt.Fprintf(b, "%s}\n", indent+strings.Repeat("\t", d))
	}
}

// gridLoop opens a generated kernel's grid-stride loop over its p.n
// positions i; the kernel's body follows at two tabs.
const gridLoop = "\tconst long long step = (long long)gridDim.x * blockDim.x;\n" +
	"\tfor (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += step) {\n"

// checkParams refuses a kernel whose parameter struct exceeds the kernel
// parameter space.
func checkParams(kind string, s paramStruct) error {
	if s.words()*8 > maxParamBytes {
		return fmt.Errorf("cuda: %s: %d bytes of kernel parameters, more than %d: %w", kind, s.words()*8, maxParamBytes, ErrNotImplemented)
	}
	return nil
}
