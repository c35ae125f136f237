package main

import (
	"bytes"
	"fmt"
	"strings"
)

// An elementwise kernel reads nin float32 slices (and, with scalar, one
// float32 broadcast into vS) and writes dst. Its body computes one vector:
// inputs in in[0..nin), the result into out, with two scratch registers.
type ewKernel struct {
	name   string // Go name: addNEON
	doc    string // what dst[i] is
	nin    int
	scalar bool
	body   func(w writer, out int, in []int, t0, t1 int)
}

// Register plan for the four vectors of a 16-float iteration, lane q: input
// j in v(4j+q), the result in v(12+q), scratch v(16+q) and v(20+q); the
// broadcast scalar in v24, zero in v26 and ones in v27.
const (
	vS    = 24
	vZero = 26
	vOne  = 27
)

func same3(ins string) func(w writer, out int, in []int, t0, t1 int) {
	return func(w writer, out int, in []int, _, _ int) {
		w.Neon("%s v%d.4s, v%d.4s, v%d.4s", ins, out, in[0], in[1])
	}
}

func misc(ins string) func(w writer, out int, in []int, t0, t1 int) {
	return func(w writer, out int, in []int, _, _ int) { w.Neon("%s v%d.4s, v%d.4s", ins, out, in[0]) }
}

// extreme is tensor/device's maxF32 (greater false: minF32): a when a is
// NaN or a > b (a < b), else b, bit for bit (signed zeros included).
func extreme(greater bool) func(w writer, out int, in []int, t0, t1 int) {
	return func(w writer, out int, in []int, t0, t1 int) {
		a, b := in[0], in[1]
		if greater {
			w.Neon("fcmgt v%d.4s, v%d.4s, v%d.4s", t0, a, b)
		} else {
			w.Neon("fcmgt v%d.4s, v%d.4s, v%d.4s", t0, b, a)
		}
		w.Neon("fcmeq v%d.4s, v%d.4s, v%d.4s", t1, a, a)
		w.Neon("orn v%d.16b, v%d.16b, v%d.16b", out, t0, t1)
		w.Neon("bsl v%d.16b, v%d.16b, v%d.16b", out, a, b)
	}
}

// swap gives a binary body its operands in the other order (the scalar on
// the left).
func swap(f func(w writer, out int, in []int, t0, t1 int)) func(w writer, out int, in []int, t0, t1 int) {
	return func(w writer, out int, in []int, t0, t1 int) { f(w, out, []int{in[1], in[0]}, t0, t1) }
}

var binaryBodies = []struct {
	name, sym string
	body      func(w writer, out int, in []int, t0, t1 int)
}{
	{"add", "+", same3("fadd")},
	{"sub", "-", same3("fsub")},
	{"mul", "*", same3("fmul")},
	{"div", "/", same3("fdiv")},
	{"maximum", "max", extreme(true)},
	{"minimum", "min", extreme(false)},
}

// elementwise lists the kernels.
var elementwise = func() []ewKernel {
	var ks []ewKernel
	for _, b := range binaryBodies {
		ks = append(ks,
			ewKernel{name: b.name + "NEON", doc: "a[i] " + b.sym + " b[i]", nin: 2, body: b.body},
			ewKernel{name: b.name + "ScalarNEON", doc: "a[i] " + b.sym + " s", nin: 1, scalar: true, body: b.body})
		if b.name == "sub" || b.name == "div" {
			ks = append(ks, ewKernel{name: "scalar" + strings.ToUpper(b.name[:1]) + b.name[1:] + "NEON",
				doc: "s " + b.sym + " a[i]", nin: 1, scalar: true, body: swap(b.body)})
		}
	}
	ks = append(ks,
		ewKernel{name: "fmaNEON", doc: "a[i]*b[i] + c[i], rounded once", nin: 3,
			body: func(w writer, out int, in []int, _, _ int) {
				w.Op("VMOV V%d.B16, V%d.B16", in[2], out)
				w.Neon("fmla v%d.4s, v%d.4s, v%d.4s", out, in[0], in[1])
			}},
		ewKernel{name: "negNEON", doc: "-x[i]", nin: 1, body: misc("fneg")},
		ewKernel{name: "absNEON", doc: "|x[i]|", nin: 1, body: misc("fabs")},
		ewKernel{name: "sqrtNEON", doc: "sqrt(x[i]), correctly rounded", nin: 1, body: misc("fsqrt")},
		ewKernel{name: "reluNEON", doc: "max(x[i], 0), NaN kept and -0 to +0 (FMAX with +0)", nin: 1,
			body: func(w writer, out int, in []int, _, _ int) {
				w.Neon("fmax v%d.4s, v%d.4s, v%d.4s", out, in[0], vZero)
			}},
		ewKernel{name: "recipNEON", doc: "1/x[i]", nin: 1,
			body: func(w writer, out int, in []int, _, _ int) {
				w.Neon("fdiv v%d.4s, v%d.4s, v%d.4s", out, vOne, in[0])
			}},
		ewKernel{name: "rsqrtNEON", doc: "1/sqrt(x[i]), each step rounded", nin: 1,
			body: func(w writer, out int, in []int, t0, _ int) {
				w.Neon("fsqrt v%d.4s, v%d.4s", t0, in[0])
				w.Neon("fdiv v%d.4s, v%d.4s, v%d.4s", out, vOne, t0)
			}},
	)
	return ks
}()

var argNames = []string{"a", "b", "c"}

func (k ewKernel) args() []string {
	if k.nin == 1 && !k.scalar {
		return []string{"x"}
	}
	return argNames[:k.nin]
}

func (k ewKernel) signature() string {
	s := "dst, " + strings.Join(k.args(), ", ") + " []float32"
	if k.scalar {
		s += ", s float32"
	}
	return s
}

func (k ewKernel) emit(s, g *bytes.Buffer) {
	argSize := 24 * (1 + k.nin)
	frame := argSize
	if k.scalar {
		frame += 4
	}
	w := kernel(s, g, k.name, "("+k.signature()+")", frame,
		fmt.Sprintf("%s sets dst[i] = %s for i < len(dst)&^3.", k.name, k.doc))
	w.Op("MOVD dst_base+0(FP), R0")
	w.Op("MOVD dst_len+8(FP), R9")
	for j, a := range k.args() {
		w.Op("MOVD %s_base+%d(FP), R%d", a, 24*(j+1), j+1)
	}
	if k.scalar {
		w.Op("FMOVS s+%d(FP), F%d", argSize, vS)
		w.Neon("dup v%d.4s, v%d.s[0]", vS, vS)
	}
	w.Op("VEOR V%d.B16, V%d.B16, V%d.B16", vZero, vZero, vZero)
	w.Op("FMOVS $1.0, F%d", vOne)
	w.Neon("dup v%d.4s, v%d.s[0]", vOne, vOne)
	inRegs := func(q int) []int {
		var r []int
		for j := 0; j < k.nin; j++ {
			r = append(r, 4*j+q)
		}
		if k.scalar {
			r = append(r, vS)
		}
		return r
	}
	regList := func(first, n int) string {
		var rs []string
		for i := 0; i < n; i++ {
			rs = append(rs, fmt.Sprintf("V%d.S4", first+i))
		}
		return "[" + strings.Join(rs, ", ") + "]"
	}
	w.Op("LSR $4, R9, R10")
	w.Op("CBZ R10, four")
	w.Label("loop")
	for j := 0; j < k.nin; j++ {
		w.Op("VLD1.P 64(R%d), %s", j+1, regList(4*j, 4))
	}
	for q := 0; q < 4; q++ {
		k.body(w, 12+q, inRegs(q), 16+q, 20+q)
	}
	w.Op("VST1.P %s, 64(R0)", regList(12, 4))
	w.Op("SUBS $1, R10")
	w.Op("BNE loop")
	w.Label("four")
	w.Op("AND $15, R9, R10")
	w.Op("LSR $2, R10")
	w.Op("CBZ R10, done")
	w.Label("loop4")
	for j := 0; j < k.nin; j++ {
		w.Op("VLD1.P 16(R%d), %s", j+1, regList(4*j, 1))
	}
	k.body(w, 12, inRegs(0), 16, 20)
	w.Op("VST1.P %s, 16(R0)", regList(12, 1))
	w.Op("SUBS $1, R10")
	w.Op("BNE loop4")
	w.Label("done")
	w.Op("RET")
}
