package main

import (
	"bytes"
	"fmt"
)

// The comparisons and selections of selects.go, 16 elements (one vector of
// bytes) a step, for the first len&^15; the Go wrappers do the rest.

// cmpOps are the comparisons in CmpOp's order: each writes the mask of a
// op b for a in register a and b in register b into register d.
var cmpOps = []struct {
	name string
	mask func(w writer, d, a, b int)
	not  bool // the complement of the mask
}{
	{"Eq", func(w writer, d, a, b int) { w.Neon("fcmeq v%d.4s, v%d.4s, v%d.4s", d, a, b) }, false},
	{"Ne", func(w writer, d, a, b int) { w.Neon("fcmeq v%d.4s, v%d.4s, v%d.4s", d, a, b) }, true},
	{"Lt", func(w writer, d, a, b int) { w.Neon("fcmgt v%d.4s, v%d.4s, v%d.4s", d, b, a) }, false},
	{"Le", func(w writer, d, a, b int) { w.Neon("fcmge v%d.4s, v%d.4s, v%d.4s", d, b, a) }, false},
	{"Gt", func(w writer, d, a, b int) { w.Neon("fcmgt v%d.4s, v%d.4s, v%d.4s", d, a, b) }, false},
	{"Ge", func(w writer, d, a, b int) { w.Neon("fcmge v%d.4s, v%d.4s, v%d.4s", d, a, b) }, false},
}

// selectKernels writes the comparison and selection kernels.
func selectKernels(s, g *bytes.Buffer) {
	for _, op := range cmpOps {
		for _, scalar := range []bool{false, true} {
			compare(s, g, op.name, op.mask, op.not, scalar)
		}
	}
	for _, form := range []string{"sel", "selScalar", "selScalarInv"} {
		selectKernel(s, g, form)
	}
}

// compare writes cmp<name>NEON (scalar: cmp<name>ScalarNEON): the four
// vectors' 32-bit masks narrowed to bytes by two rounds of UZP1 (the low
// half of each lane, in order), then ANDed with 1 (or BICed from 1 for
// the complement).
func compare(s, g *bytes.Buffer, name string, mask func(w writer, d, a, b int), not, scalar bool) {
	fn, sig, frame, doc := "cmp"+name+"NEON", "dst []uint8, a, b []float32", 72, "a[i] %s b[i]"
	if scalar {
		fn, sig, frame, doc = "cmp"+name+"ScalarNEON", "dst []uint8, a []float32, s float32", 52, "a[i] %s s"
	}
	w := kernel(s, g, fn, "("+sig+")", frame,
		fmt.Sprintf("%s sets dst[i] = 1 where "+doc+" holds, else 0, for i < len(dst)&^15.", fn, name))
	w.Op("MOVD dst_base+0(FP), R0")
	w.Op("MOVD dst_len+8(FP), R9")
	w.Op("MOVD a_base+24(FP), R1")
	if scalar {
		w.Op("FMOVS s+48(FP), F24")
		w.Neon("dup v24.4s, v24.s[0]")
	} else {
		w.Op("MOVD b_base+48(FP), R2")
	}
	w.Op("MOVW $0x01010101, R3")
	w.Op("VDUP R3, V25.S4")
	w.Op("LSR $4, R9")
	w.Op("CBZ R9, done")
	w.Label("loop")
	w.Op("VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]")
	if !scalar {
		w.Op("VLD1.P 64(R2), [V4.S4, V5.S4, V6.S4, V7.S4]")
	}
	for q := 0; q < 4; q++ {
		b := 4 + q
		if scalar {
			b = 24
		}
		mask(w, 8+q, q, b)
	}
	w.Op("VUZP1 V9.H8, V8.H8, V12.H8") // v12 = uzp1(v8, v9)
	w.Op("VUZP1 V11.H8, V10.H8, V13.H8")
	w.Op("VUZP1 V13.B16, V12.B16, V14.B16")
	if not {
		w.Neon("bic v14.16b, v25.16b, v14.16b")
	} else {
		w.Neon("and v14.16b, v14.16b, v25.16b")
	}
	w.Op("VST1.P [V14.B16], 16(R0)")
	w.Op("SUBS $1, R9")
	w.Op("BNE loop")
	w.Label("done")
	w.Op("RET")
}

// selectKernel writes selNEON (dst[i] = c[i] != 0 ? a[i] : b[i]),
// selScalarNEON (… : s) or selScalarInvNEON (c[i] != 0 ? s : a[i]): the
// bytes' non-zero masks widened to 32-bit lanes by two rounds of ZIP1/ZIP2
// of each with itself, then BSL.
func selectKernel(s, g *bytes.Buffer, form string) {
	fn := form + "NEON"
	sig, frame, doc := "dst []float32, c []uint8, a, b []float32", 96, "c[i] != 0 ? a[i] : b[i]"
	switch form {
	case "selScalar":
		sig, frame, doc = "dst []float32, c []uint8, a []float32, s float32", 76, "c[i] != 0 ? a[i] : s"
	case "selScalarInv":
		sig, frame, doc = "dst []float32, c []uint8, a []float32, s float32", 76, "c[i] != 0 ? s : a[i]"
	}
	w := kernel(s, g, fn, "("+sig+")", frame, fmt.Sprintf("%s sets dst[i] = %s for i < len(dst)&^15.", fn, doc))
	w.Op("MOVD dst_base+0(FP), R0")
	w.Op("MOVD dst_len+8(FP), R9")
	w.Op("MOVD c_base+24(FP), R1")
	w.Op("MOVD a_base+48(FP), R2")
	if form == "sel" {
		w.Op("MOVD b_base+72(FP), R3")
	} else {
		w.Op("FMOVS s+72(FP), F24")
		w.Neon("dup v24.4s, v24.s[0]")
	}
	w.Op("LSR $4, R9")
	w.Op("CBZ R9, done")
	w.Label("loop")
	w.Op("VLD1.P 16(R1), [V0.B16]")
	w.Op("VCMTST V0.B16, V0.B16, V1.B16") // c != 0
	w.Op("VZIP1 V1.B16, V1.B16, V2.B16")
	w.Op("VZIP2 V1.B16, V1.B16, V3.B16")
	w.Op("VZIP1 V2.H8, V2.H8, V4.H8")
	w.Op("VZIP2 V2.H8, V2.H8, V5.H8")
	w.Op("VZIP1 V3.H8, V3.H8, V6.H8")
	w.Op("VZIP2 V3.H8, V3.H8, V7.H8")
	w.Op("VLD1.P 64(R2), [V16.S4, V17.S4, V18.S4, V19.S4]")
	if form == "sel" {
		w.Op("VLD1.P 64(R3), [V20.S4, V21.S4, V22.S4, V23.S4]")
	}
	for q := 0; q < 4; q++ {
		m := 4 + q
		switch form {
		case "sel":
			w.Neon("bsl v%d.16b, v%d.16b, v%d.16b", m, 16+q, 20+q)
		case "selScalar":
			w.Neon("bsl v%d.16b, v%d.16b, v24.16b", m, 16+q)
		default:
			w.Neon("bsl v%d.16b, v24.16b, v%d.16b", m, 16+q)
		}
	}
	w.Op("VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R0)")
	w.Op("SUBS $1, R9")
	w.Op("BNE loop")
	w.Label("done")
	w.Op("RET")
}
