package cuda

import (
	"fmt"
	"strings"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// plEntry is the generated pooling kernel's entry point.
const plEntry = "sf_pool"

// plHelpers are the pooling kernels' window functions: an adaptive
// window's bounds along one dimension ([floor(y*in/out), ceil((y+1)*in/out)))
// and the number of a window's taps inside the input.
const plHelpers = `
SF_FN long long sf_adaptive_start(long long y, long long in, long long out) { return y * in / out; }
SF_FN long long sf_adaptive_end(long long y, long long in, long long out) { return ((y + 1) * in + out - 1) / out; }
SF_FN long long sf_taps_inside(long long start, long long taps, long long step, long long in) {
	long long n = 0;
	for (long long t = 0; t < taps; t++) {
		const long long x = start + t * step;
		n += (x >= 0 && x < in) ? 1 : 0;
	}
	return n;
}
`

// plParams is the parameter struct of every pooling kernel: the element
// count n, N and C, the geometry, X, Out (address and offset: it is
// contiguous) and Indices.
var plParams = append(append(append(paramStruct{{"n", 0}, {"N", 0}, {"C", 0}}, geomFields...), viewFields("x")...),
	append(paramStruct{{"dst", 0}, {"dst_off", 0}}, viewFields("idx")...)...)

// plHasIndices reports whether a pooling reads or writes Indices.
func plHasIndices(k *device.PoolKernel) bool { return k.Op == device.PoolMax && k.Indices.Buf != nil }

// plSignature is what a generated pooling kernel depends on: the op, the
// direction, the window rule, the divisor rule, whether Indices is used and
// the spatial rank (every view is Float32 but Indices, Int32).
func plSignature(k *device.PoolKernel) string {
	b2b := func(v bool) byte {
		if v {
			return 1
		}
		return 0
	}
	return string([]byte{'p', byte(k.Op), b2b(k.Backward), b2b(k.Adaptive), b2b(k.CountIncludePad), b2b(plHasIndices(k)), byte(len(k.Geom.In))})
}

// windowLines declares output y<d>'s window along d: its first input
// position s<d>, its taps w<d> and their step h<d>.
func windowLines(k *device.PoolKernel, d int, in string) string {
	if k.Adaptive {
		return fmt.Sprintf("%sconst long long s%d = sf_adaptive_start(y%d, p.g_in[%d], p.g_out[%d]), w%d = sf_adaptive_end(y%d, p.g_in[%d], p.g_out[%d]) - s%d, h%d = 1;\n",
			in, d, d, d, d, d, d, d, d, d, d)
	}
	return fmt.Sprintf("%sconst long long s%d = y%d * p.g_s[%d] - p.g_p[%d], w%d = p.g_k[%d], h%d = p.g_d[%d];\n", in, d, d, d, d, d, d, d, d)
}

// divisorExpr is the C expression of an average's divisor over the
// windows declared by windowLines: the whole window's size with
// CountIncludePad (not adaptive), else its taps inside the input.
func divisorExpr(k *device.PoolKernel) string {
	var f []string
	for d := range k.Geom.In {
		if k.CountIncludePad && !k.Adaptive {
			f = append(f, fmt.Sprintf("p.g_k[%d]", d))
		} else {
			f = append(f, fmt.Sprintf("sf_taps_inside(s%d, w%d, h%d, p.g_in[%d])", d, d, d, d))
		}
	}
	return "(float)(" + strings.Join(f, " * ") + ")"
}

// renderPool returns the CUDA C of a validated pooling: one thread per
// element written (a grid-stride loop). Forward walks the output's window
// in row-major order: max keeps the first value and then each NaN or
// larger value (the last NaN, else the first largest, as PyTorch), with its row-major input position (-1, NoWinner, and
// -Inf for a window wholly in the padding); an average divides the sum
// by divisorExpr (0 for an empty window). Backward gathers, for an input
// position, the gradient of every output whose window holds it, in
// increasing output order: max adds those whose winner it is, an average
// adds each gradient over its divisor. Only the signature shapes the text.
func renderPool(k *device.PoolKernel) string {
	nsp := len(k.Geom.In)
	isMax := k.Op == device.PoolMax
	var b strings.Builder
	b.WriteString(opsSource)
	b.WriteString(plHelpers)
	fmt.Fprintf(&b, "\n// A generated pooling kernel (op %d, backward %v, adaptive %v, count_include_pad %v) over %d spatial dimensions.\n",
		k.Op, k.Backward, k.Adaptive, k.CountIncludePad, nsp)
	b.WriteString(plParams.decl("sf_pool_params"))
	fmt.Fprintf(&b, "extern \"C\" __global__ void %s(const sf_pool_params p) {\n", plEntry)
	b.WriteString(gridLoop)
	const in2 = "\t\t"
	ys, xs := spatial("y", nsp), spatial("x", nsp)
	ld := func(at []string) string {
		return fmt.Sprintf("sf_ld_f32((unsigned long long)p.x, %s)", offsetExpr("ex", "x_st", 2, at))
	}
	if k.Backward {
		writeSplit(&b, in2, "i", append([]string{"nn", "c"}, xs...), append([]string{"p.N", "p.C"}, geomSizes("g_in", nsp)...))
		b.WriteString(in2 + "const long long ex = p.x_off + nn * p.x_st[0] + c * p.x_st[1];\n")
		if isMax {
			b.WriteString(in2 + "const long long ei = p.idx_off + nn * p.idx_st[0] + c * p.idx_st[1];\n")
			fmt.Fprintf(&b, "%sconst long long me = %s;\n", in2, rowMajorExpr(xs, geomSizes("g_in", nsp)))
		}
		b.WriteString(in2 + "float acc = 0.0f;\n")
		inner := openLoops(&b, in2, nsp, func(d int, in string) string {
			return candidateLoop(k, d, in)
		})
		fmt.Fprintf(&b, "%sconst float gv = %s;\n", inner, ld(ys))
		if isMax {
			fmt.Fprintf(&b, "%sif ((long long)sf_ld_i32((unsigned long long)p.idx, %s) == me) acc += gv;\n", inner, offsetExpr("ei", "idx_st", 2, ys))
		} else {
			fmt.Fprintf(&b, "%sconst float div = %s;\n%sif (div > 0.0f) acc += gv / div;\n", inner, divisorExpr(k), inner)
		}
		closeLoops(&b, in2, nsp)
		b.WriteString(in2 + "sf_st_f32((unsigned long long)p.dst, p.dst_off + i, acc);\n")
		b.WriteString("\t}\n}\n")
		return b.String()
	}
	res := append([]string{"nn", "c"}, ys...)
	writeSplit(&b, in2, "i", res, append([]string{"p.N", "p.C"}, geomSizes("g_out", nsp)...))
	b.WriteString(in2 + "const long long ex = p.x_off + nn * p.x_st[0] + c * p.x_st[1];\n")
	for d := 0; d < nsp; d++ {
		b.WriteString(windowLines(k, d, in2))
	}
	if isMax {
		b.WriteString(in2 + "float best = -sf_inf();\n" + in2 + "long long arg = -1;\n")
	} else {
		b.WriteString(in2 + "float sum = 0.0f;\n")
	}
	inner := openLoops(&b, in2, nsp, func(d int, in string) string {
		return fmt.Sprintf("for (long long t%d = 0; t%d < w%d; t%d++) {\n", d, d, d, d) +
			fmt.Sprintf("%sconst long long x%d = s%d + t%d * h%d;\n%sif (x%d < 0 || x%d >= p.g_in[%d]) continue;\n", in, d, d, d, d, in, d, d, d)
	})
	fmt.Fprintf(&b, "%sconst float v = %s;\n", inner, ld(xs))
	if isMax {
		fmt.Fprintf(&b, "%sif (arg < 0 || sf_is_nan(v) || v > best) {\n", inner)
		fmt.Fprintf(&b, "%s\tbest = v;\n%s\targ = %s;\n%s}\n", inner, inner, rowMajorExpr(xs, geomSizes("g_in", nsp)), inner)
	} else {
		fmt.Fprintf(&b, "%ssum += v;\n", inner)
	}
	closeLoops(&b, in2, nsp)
	if isMax {
		b.WriteString(in2 + "sf_st_f32((unsigned long long)p.dst, p.dst_off + i, best);\n")
		if plHasIndices(k) {
			fmt.Fprintf(&b, "%ssf_st_i32((unsigned long long)p.idx, %s, (int)arg);\n", in2, offsetExpr("p.idx_off", "idx_st", 0, res))
		}
	} else {
		fmt.Fprintf(&b, "%sconst float div = %s;\n", in2, divisorExpr(k))
		b.WriteString(in2 + "sf_st_f32((unsigned long long)p.dst, p.dst_off + i, div > 0.0f ? sum / div : 0.0f);\n")
	}
	b.WriteString("\t}\n}\n")
	return b.String()
}

// candidateLoop opens backward pooling's loop over the outputs y<d> whose
// window along d may hold input position x<d>, in increasing order,
// skipping those that do not, and (for averages) declares each one's
// window.
func candidateLoop(k *device.PoolKernel, d int, in string) string {
	var s string
	if k.Adaptive {
		s = fmt.Sprintf("for (long long y%d = x%d * p.g_out[%d] / p.g_in[%d]; y%d < ((x%d + 1) * p.g_out[%d] + p.g_in[%d] - 1) / p.g_in[%d]; y%d++) {\n",
			d, d, d, d, d, d, d, d, d, d) +
			fmt.Sprintf("%sif (y%d >= p.g_out[%d] || x%d < sf_adaptive_start(y%d, p.g_in[%d], p.g_out[%d]) || x%d >= sf_adaptive_end(y%d, p.g_in[%d], p.g_out[%d])) continue;\n",
				in, d, d, d, d, d, d, d, d, d, d)
	} else {
		// Tap j from the window's end: the outputs come in increasing order.
		s = fmt.Sprintf("for (long long j%d = 0; j%d < p.g_k[%d]; j%d++) {\n", d, d, d, d) +
			fmt.Sprintf("%sconst long long t%d = x%d + p.g_p[%d] - (p.g_k[%d] - 1 - j%d) * p.g_d[%d];\n", in, d, d, d, d, d, d) +
			fmt.Sprintf("%sif (t%d < 0 || t%d %% p.g_s[%d] != 0 || t%d / p.g_s[%d] >= p.g_out[%d]) continue;\n", in, d, d, d, d, d, d) +
			fmt.Sprintf("%sconst long long y%d = t%d / p.g_s[%d];\n", in, d, d, d)
	}
	if k.Op == device.PoolAvg {
		s += windowLines(k, d, in)
	}
	return s
}

// planPool returns the parameter words of a validated pooling's one launch
// (addresses in ptrs: X, Out, and Indices when used), or nil when it
// writes nothing.
func planPool(k *device.PoolKernel, ptrs []uint64) []int64 {
	n := k.Out.NumElements()
	if n == 0 {
		return nil
	}
	s := plParams
	w := make([]int64, s.words())
	w[s.at("n")], w[s.at("N")], w[s.at("C")] = int64(n), int64(k.Geom.N), int64(k.Geom.C)
	putGeom(w, s, k.Geom)
	putView(w, s, "x", k.X, ptrs[0])
	w[s.at("dst")], w[s.at("dst_off")] = int64(ptrs[1]), int64(k.Out.Offset)
	if plHasIndices(k) {
		putView(w, s, "idx", k.Indices, ptrs[2])
	}
	return w
}
