package main

import (
	"bytes"
	"fmt"
	"math"
)

// unaryKernel writes a kernel dst[i] = f(x[i]) of one vector an iteration:
// consts loads the kernel's constants (into v16 up), body computes one
// vector from x in v0 and returns the register holding the result.
func unaryKernel(s, g *bytes.Buffer, name, doc string, consts func(w writer), body func(w writer) int) {
	w := kernel(s, g, name, "(dst, x []float32)", 48, fmt.Sprintf("%s sets dst[i] = %s for i < len(dst)&^3.", name, doc))
	w.Op("MOVD dst_base+0(FP), R0")
	w.Op("MOVD dst_len+8(FP), R9")
	w.Op("MOVD x_base+24(FP), R1")
	consts(w)
	w.Op("LSR $2, R9")
	w.Op("CBZ R9, done")
	w.Label("loop")
	w.Op("VLD1.P 16(R1), [V0.S4]")
	out := body(w)
	w.Op("VST1.P [V%d.S4], 16(R0)", out)
	w.Op("SUBS $1, R9")
	w.Op("BNE loop")
	w.Label("done")
	w.Op("RET")
}

// broadcast loads each value into every lane of one register, from v first
// up.
func broadcast(w writer, first int, vals ...float32) {
	for i, v := range vals {
		w.Op("MOVW $0x%08x, R2", math.Float32bits(v))
		w.Op("VDUP R2, V%d.S4", first+i)
	}
}

// pack loads up to four values into the lanes of register v, lane 0 first
// (read back by element: fmla by element, or dup).
func pack(w writer, v int, vals ...float32) {
	if len(vals) > 4 {
		panic("neongen: more than four values in one register")
	}
	for i, x := range vals {
		w.Op("MOVW $0x%08x, R2", math.Float32bits(x))
		w.Op("VMOV R2, V%d.S[%d]", v, i)
	}
}
