package main

import (
	"bytes"
	"fmt"
)

// A reduction reads one or two float32 slices and returns a float64 sum
// (four float64x2 accumulators, v16–v19, 8 floats a loop iteration) or a
// float32 extreme (FMAX/FMIN across vectors, NaN propagating), for the
// first len&^7 elements (sums) or len&^3 (extremes, at least 4).
type reduction struct {
	name, doc string
	nin       int
	mean      bool // a float32 argument mean, widened into v20
	extreme   string
	step      func(w writer, acc int, lo, hi []int) // sums: add the widened halves lo, hi into acc, acc+1
}

var reductions = []reduction{
	{name: "sumNEON", doc: "the sum of x[i], in float64", nin: 1,
		step: func(w writer, acc int, x, _ []int) {
			w.Neon("fadd v%d.2d, v%d.2d, v%d.2d", acc, acc, x[0])
			w.Neon("fadd v%d.2d, v%d.2d, v%d.2d", acc+1, acc+1, x[1])
		}},
	{name: "dotNEON", doc: "the sum of a[i]*b[i], in float64 (each product exact)", nin: 2,
		step: func(w writer, acc int, a, b []int) {
			w.Neon("fmla v%d.2d, v%d.2d, v%d.2d", acc, a[0], b[0])
			w.Neon("fmla v%d.2d, v%d.2d, v%d.2d", acc+1, a[1], b[1])
		}},
	{name: "sumSqDiffNEON", doc: "the sum of (x[i]-mean)^2 in float64, each square fused into its sum", nin: 1, mean: true,
		step: func(w writer, acc int, x, _ []int) {
			for h := 0; h < 2; h++ {
				w.Neon("fsub v%d.2d, v%d.2d, v20.2d", x[h], x[h])
				w.Neon("fmla v%d.2d, v%d.2d, v%d.2d", acc+h, x[h], x[h])
			}
		}},
	{name: "maxNEON", doc: "the largest x[i], or a NaN if there is one", nin: 1, extreme: "fmax"},
	{name: "minNEON", doc: "the smallest x[i], or a NaN if there is one", nin: 1, extreme: "fmin"},
}

func (r reduction) emit(s, g *bytes.Buffer) {
	args := "x []float32"
	if r.nin == 2 {
		args = "a, b []float32"
	}
	if r.mean {
		args += ", mean float32"
	}
	ret, retOff, retSize, lenDoc := "float64", 24*r.nin, 8, "len&^7"
	if r.mean {
		retOff += 8
	}
	if r.extreme != "" {
		ret, retSize, lenDoc = "float32", 4, "len&^3 (len ≥ 4)"
	}
	w := kernel(s, g, r.name, "("+args+") "+ret, retOff+retSize,
		fmt.Sprintf("%s returns %s over the first %s elements.", r.name, r.doc, lenDoc))
	w.Op("MOVD %s_base+0(FP), R1", map[bool]string{true: "a", false: "x"}[r.nin == 2])
	w.Op("MOVD %s_len+8(FP), R9", map[bool]string{true: "a", false: "x"}[r.nin == 2])
	if r.nin == 2 {
		w.Op("MOVD b_base+24(FP), R2")
	}
	if r.extreme != "" {
		w.Op("VLD1.P 16(R1), [V16.S4]")
		w.Op("LSR $2, R9")
		w.Op("SUBS $1, R9")
		w.Op("BEQ done")
		w.Label("loop")
		w.Op("VLD1.P 16(R1), [V0.S4]")
		w.Neon("%s v16.4s, v16.4s, v0.4s", r.extreme)
		w.Op("SUBS $1, R9")
		w.Op("BNE loop")
		w.Label("done")
		w.Neon("%sv s0, v16.4s", r.extreme)
		w.Op("FMOVS F0, ret+%d(FP)", retOff)
		w.Op("RET")
		return
	}
	for a := 16; a < 20; a++ {
		w.Op("VEOR V%d.B16, V%d.B16, V%d.B16", a, a, a)
	}
	if r.mean {
		w.Op("FMOVS mean+24(FP), F20")
		w.Op("FCVTSD F20, F20")
		w.Neon("dup v20.2d, v20.d[0]")
	}
	w.Op("LSR $3, R9")
	w.Op("CBZ R9, done")
	w.Label("loop")
	for j := 0; j < r.nin; j++ {
		w.Op("VLD1.P 32(R%d), [V%d.S4, V%d.S4]", j+1, 8*j, 8*j+1)
		// widen: vectors 8j, 8j+1 become 8j+2 … 8j+5 (two float64 each)
		w.Neon("fcvtl v%d.2d, v%d.2s", 8*j+2, 8*j)
		w.Neon("fcvtl2 v%d.2d, v%d.4s", 8*j+3, 8*j)
		w.Neon("fcvtl v%d.2d, v%d.2s", 8*j+4, 8*j+1)
		w.Neon("fcvtl2 v%d.2d, v%d.4s", 8*j+5, 8*j+1)
	}
	r.step(w, 16, []int{2, 3}, []int{10, 11})
	r.step(w, 18, []int{4, 5}, []int{12, 13})
	w.Op("SUBS $1, R9")
	w.Op("BNE loop")
	w.Label("done")
	w.Neon("fadd v16.2d, v16.2d, v17.2d")
	w.Neon("fadd v18.2d, v18.2d, v19.2d")
	w.Neon("fadd v16.2d, v16.2d, v18.2d")
	w.Neon("faddp d0, v16.2d")
	w.Op("FMOVD F0, ret+%d(FP)", retOff)
	w.Op("RET")
}

// indexOf writes indexOfNEON: the start of the first vector of x[:len&^3]
// holding an element equal to v (or a NaN when v is NaN), or len&^3 when
// none does; the Go wrapper finds the element within it (goIndexOf).
func indexOf(s, g *bytes.Buffer) {
	w := kernel(s, g, "indexOfNEON", "(x []float32, v float32) int", 40,
		"indexOfNEON returns the start of the first vector of x[:len(x)&^3]\n"+
			"holding x[i] == v (or a NaN x[i] for a NaN v), or len(x)&^3 if none.")
	w.Op("MOVD x_base+0(FP), R0")
	w.Op("MOVD x_len+8(FP), R9")
	w.Op("FMOVS v+24(FP), F1")
	w.Neon("dup v1.4s, v1.s[0]")
	w.Neon("fcmeq v2.4s, v1.4s, v1.4s") // v is not NaN
	w.Op("LSR $2, R9, R10")
	w.Op("MOVD ZR, R11")
	w.Op("CBZ R10, done")
	w.Label("loop")
	w.Op("VLD1.P 16(R0), [V0.S4]")
	w.Neon("fcmeq v3.4s, v0.4s, v1.4s")
	w.Neon("fcmeq v4.4s, v0.4s, v0.4s")
	w.Neon("orr v4.16b, v4.16b, v2.16b")
	w.Neon("orn v3.16b, v3.16b, v4.16b") // x == v, or both NaN
	w.Neon("umaxv s3, v3.4s")
	w.Op("FMOVS F3, R12")
	w.Op("CBNZW R12, done")
	w.Op("ADD $4, R11")
	w.Op("SUBS $1, R10")
	w.Op("BNE loop")
	w.Label("done")
	w.Op("MOVD R11, ret+32(FP)")
	w.Op("RET")
}
