package main

import "bytes"

// transpose writes packTranspose4NEON, the packers' 4×4 register
// transpose: for the first depth&^3 steps p and lanes r < 4, dst[p*w+r] =
// src[r*ld+p]. Four lines (src rows) are read 4 floats at a time and
// transposed with TRN1/TRN2 on 32-bit and then 64-bit lanes.
func transpose(s *bytes.Buffer, g *bytes.Buffer) {
	g.WriteString(`
// packTranspose4NEON transposes four lines of src (ld floats apart) into
// groups of w floats of dst: dst[p*w+r] = src[r*ld+p] for r < 4 and
// p < depth&^3 (the caller does the last depth%4 steps).
//
//go:noescape
func packTranspose4NEON(dst *float32, w int, src *float32, ld, depth int)
`)
	w := writer{S: s}
	s.WriteString("\n// func packTranspose4NEON(dst *float32, w int, src *float32, ld, depth int)\n")
	s.WriteString("TEXT ·packTranspose4NEON(SB), NOSPLIT, $0-40\n")
	w.Op("MOVD dst+0(FP), R0")
	w.Op("MOVD w+8(FP), R1")
	w.Op("LSL $2, R1")
	w.Op("MOVD src+16(FP), R2")
	w.Op("MOVD ld+24(FP), R3")
	w.Op("LSL $2, R3")
	w.Op("MOVD depth+32(FP), R4")
	w.Op("LSR $2, R4")
	w.Op("CBZ R4, done")
	w.Op("ADD R3, R2, R5") // line 1
	w.Op("ADD R3, R5, R6") // line 2
	w.Op("ADD R3, R6, R7") // line 3
	w.Label("loop")
	w.Op("VLD1.P 16(R2), [V0.S4]")
	w.Op("VLD1.P 16(R5), [V1.S4]")
	w.Op("VLD1.P 16(R6), [V2.S4]")
	w.Op("VLD1.P 16(R7), [V3.S4]")
	// Go's operand order is Vm, Vn, Vd.
	w.Op("VTRN1 V1.S4, V0.S4, V4.S4")  // a0 b0 a2 b2
	w.Op("VTRN2 V1.S4, V0.S4, V5.S4")  // a1 b1 a3 b3
	w.Op("VTRN1 V3.S4, V2.S4, V6.S4")  // c0 d0 c2 d2
	w.Op("VTRN2 V3.S4, V2.S4, V7.S4")  // c1 d1 c3 d3
	w.Op("VTRN1 V6.D2, V4.D2, V16.D2") // step 0
	w.Op("VTRN1 V7.D2, V5.D2, V17.D2") // step 1
	w.Op("VTRN2 V6.D2, V4.D2, V18.D2") // step 2
	w.Op("VTRN2 V7.D2, V5.D2, V19.D2") // step 3
	w.Op("VST1 [V16.S4], (R0)")
	w.Op("ADD R1, R0, R8")
	w.Op("VST1 [V17.S4], (R8)")
	w.Op("ADD R1, R8")
	w.Op("VST1 [V18.S4], (R8)")
	w.Op("ADD R1, R8")
	w.Op("VST1 [V19.S4], (R8)")
	w.Op("ADD R1, R8, R0")
	w.Op("SUBS $1, R4")
	w.Op("BNE loop")
	w.Label("done")
	w.Op("RET")
}
