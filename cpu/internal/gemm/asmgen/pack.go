package main

import (
	"bytes"
	"fmt"
)

// The packing routines of the AVX-512 level. Both write groups of w floats
// (one per depth step) and leave lanes they are not given untouched.

// packTransposeAVX512 emits
//
//	func packTranspose16AVX512(dst *float32, w int, src *float32, ld, depth, lines int)
//
// which, for 1 ≤ lines ≤ 16, writes lane r < lines of group p (at dst +
// p*w floats) with src[r*ld + p] for p < depth: a 16×16 register transpose
// per 16 depth steps.
func packTransposeAVX512(s, g *bytes.Buffer) {
	const sym = "packTranspose16AVX512"
	g.WriteString(`
// packTranspose16AVX512 writes lane r < lines (1 ≤ lines ≤ 16) of the depth
// groups of w floats at dst with src[r*ld+p], p < depth.
//
//go:noescape
func packTranspose16AVX512(dst *float32, w int, src *float32, ld, depth, lines int)
`)
	w := func(format string, args ...any) { fmt.Fprintf(s, "\t"+format+"\n", args...) }
	label := func(l string) { fmt.Fprintf(s, "%s_%s:\n", sym, l) }
	fmt.Fprintf(s, "\n// func %s(dst *float32, w int, src *float32, ld, depth, lines int)\n", sym)
	fmt.Fprintf(s, "TEXT ·%s(SB), NOSPLIT, $0-48\n", sym)
	w("MOVQ dst+0(FP), DI")
	w("MOVQ w+8(FP), R13")
	w("SHLQ $2, R13") // group stride in bytes
	w("MOVQ src+16(FP), SI")
	w("MOVQ ld+24(FP), R8")
	w("SHLQ $2, R8") // line stride in bytes
	w("MOVQ depth+32(FP), CX")
	w("MOVQ lines+40(FP), DX")
	w("LEAQ (R8)(R8*2), R9") // 3*ld
	w("LEAQ (SI)(R8*4), R10")
	w("LEAQ (R10)(R8*4), R11")
	w("LEAQ (R11)(R8*4), R12")
	// K1: store mask of the valid lanes.
	w("MOVL $1, AX")
	w("SHLXL DX, AX, AX")
	w("DECL AX")
	w("KMOVW AX, K1")
	w("MOVQ CX, BX")
	w("SHRQ $4, BX") // full 16-step blocks
	w("JZ %s_tail", sym)
	w("KXNORW K2, K2, K2") // all-ones load mask
	label("loop")
	loadRows(w, label, sym, "loop")
	transpose16(w)
	for q := 0; q < 16; q++ {
		w("VMOVUPS Z%d, K1, (DI)", 16+q)
		w("ADDQ R13, DI")
	}
	for _, r := range []string{"SI", "R10", "R11", "R12"} {
		w("ADDQ $64, %s", r)
	}
	w("DECQ BX")
	w("JNZ %s_loop", sym)
	label("tail")
	w("ANDQ $15, CX")
	w("JZ %s_done", sym)
	w("MOVL $1, AX")
	w("SHLXL CX, AX, AX")
	w("DECL AX")
	w("KMOVW AX, K2") // load mask of the remaining depth steps
	loadRows(w, label, sym, "tail")
	transpose16(w)
	for q := 0; q < 15; q++ {
		w("VMOVUPS Z%d, K1, (DI)", 16+q)
		w("ADDQ R13, DI")
		w("CMPQ CX, $%d", q+1)
		w("JEQ %s_done", sym)
	}
	label("done")
	w("VZEROUPPER")
	w("RET")
}

// loadRows loads line r < lines into Z(16+r) under load mask K2 (zeroing)
// and zeroes the others; tag makes its label unique.
func loadRows(w func(string, ...any), label func(string), sym, tag string) {
	bases := []string{"SI", "R10", "R11", "R12"}
	idx := []string{"", "(R8*1)", "(R8*2)", "(R9*1)"}
	for r := 0; r < 16; r++ {
		w("VPXORD Z%d, Z%d, Z%d", 16+r, 16+r, 16+r)
	}
	for r := 0; r < 16; r++ {
		if r > 0 {
			w("CMPQ DX, $%d", r)
			w("JLE %s_%sloaded", sym, tag)
		}
		w("VMOVUPS.Z (%s)%s, K2, Z%d", bases[r/4], idx[r%4], 16+r)
	}
	label(tag + "loaded")
}

// transpose16 transposes Z16..Z31 (rows) in place: column q ends in Z(16+q).
func transpose16(w func(string, ...any)) {
	// Stage 1: interleave 32-bit elements of row pairs: Z0..Z15.
	for i := 0; i < 8; i++ {
		r0, r1 := 16+2*i, 17+2*i
		w("VUNPCKLPS Z%d, Z%d, Z%d", r1, r0, 2*i)
		w("VUNPCKHPS Z%d, Z%d, Z%d", r1, r0, 2*i+1)
	}
	// Stage 2: interleave 64-bit pairs: Z16..Z31.
	for gq := 0; gq < 4; gq++ {
		t0, t1, t2, t3 := 4*gq, 4*gq+1, 4*gq+2, 4*gq+3
		o := 16 + 4*gq
		w("VUNPCKLPD Z%d, Z%d, Z%d", t2, t0, o)
		w("VUNPCKHPD Z%d, Z%d, Z%d", t2, t0, o+1)
		w("VUNPCKLPD Z%d, Z%d, Z%d", t3, t1, o+2)
		w("VUNPCKHPD Z%d, Z%d, Z%d", t3, t1, o+3)
	}
	// Stage 3: 128-bit lanes across row groups (0-3 with 4-7, 8-11 with 12-15): Z0..Z15.
	for h := 0; h < 2; h++ {
		for c := 0; c < 4; c++ {
			a, b := 16+8*h+c, 16+8*h+4+c
			w("VSHUFF32X4 $0x88, Z%d, Z%d, Z%d", b, a, 8*h+c)
			w("VSHUFF32X4 $0xDD, Z%d, Z%d, Z%d", b, a, 8*h+4+c)
		}
	}
	// Stage 4: rows 0-7 with rows 8-15: columns c and 8+c.
	for c := 0; c < 8; c++ {
		w("VSHUFF32X4 $0x88, Z%d, Z%d, Z%d", 8+c, c, 16+c)
		w("VSHUFF32X4 $0xDD, Z%d, Z%d, Z%d", 8+c, c, 24+c)
	}
}

// packCopyAVX512 emits
//
//	func packCopyAVX512(dst *float32, w, pstride int, src *float32, ld, depth, np int)
//
// which copies, for every depth step p and panel q < np, the w floats at
// src[p*ld + q*w] to dst[q*pstride + p*w]: np whole panels of a row-major
// matrix packed in one pass over its rows. 1 ≤ w ≤ 64.
func packCopyAVX512(s, g *bytes.Buffer) {
	const sym = "packCopyAVX512"
	g.WriteString(`
// packCopyAVX512 copies, for p < depth and q < np, the w floats (1 ≤ w ≤ 64)
// at src[p*ld+q*w] to dst[q*pstride+p*w].
//
//go:noescape
func packCopyAVX512(dst *float32, w, pstride int, src *float32, ld, depth, np int)
`)
	w := func(format string, args ...any) { fmt.Fprintf(s, "\t"+format+"\n", args...) }
	label := func(l string) { fmt.Fprintf(s, "%s_%s:\n", sym, l) }
	fmt.Fprintf(s, "\n// func %s(dst *float32, w, pstride int, src *float32, ld, depth, np int)\n", sym)
	fmt.Fprintf(s, "TEXT ·%s(SB), NOSPLIT, $0-56\n", sym)
	w("MOVQ dst+0(FP), DI")
	w("MOVQ w+8(FP), R13")
	w("MOVQ pstride+16(FP), R14")
	w("SHLQ $2, R14")
	w("MOVQ src+24(FP), SI")
	w("MOVQ ld+32(FP), R8")
	w("SHLQ $2, R8")
	w("MOVQ depth+40(FP), CX")
	// K1: mask of the last vector of a group (w%16 lanes, or all 16).
	w("MOVQ R13, AX")
	w("ANDQ $15, AX")
	w("MOVL $0xffff, BX")
	w("JZ %s_fullmask", sym)
	w("MOVL $1, BX")
	w("SHLXL AX, BX, BX")
	w("DECL BX")
	label("fullmask")
	w("KMOVW BX, K1")
	w("MOVQ np+48(FP), BX")
	w("LEAQ -1(R13), DX")
	w("SHRQ $4, DX")  // full vectors before the last one
	w("SHLQ $2, R13") // w in bytes
	w("TESTQ CX, CX")
	w("JLE %s_done", sym)
	w("TESTQ BX, BX")
	w("JLE %s_done", sym)
	label("row")
	w("MOVQ SI, R9")  // source of panel q
	w("MOVQ DI, R10") // destination of panel q
	w("MOVQ BX, R11")
	label("panel")
	w("XORQ AX, AX") // byte offset within the group
	w("MOVQ DX, R12")
	w("TESTQ R12, R12")
	w("JZ %s_last", sym)
	label("vec")
	w("VMOVUPS (R9)(AX*1), Z0")
	w("VMOVUPS Z0, (R10)(AX*1)")
	w("ADDQ $64, AX")
	w("DECQ R12")
	w("JNZ %s_vec", sym)
	label("last")
	w("VMOVUPS.Z (R9)(AX*1), K1, Z0")
	w("VMOVUPS Z0, K1, (R10)(AX*1)")
	w("ADDQ R13, R9")
	w("ADDQ R14, R10")
	w("DECQ R11")
	w("JNZ %s_panel", sym)
	w("ADDQ R8, SI")
	w("ADDQ R13, DI")
	w("DECQ CX")
	w("JNZ %s_row", sym)
	label("done")
	w("VZEROUPPER")
	w("RET")
}
