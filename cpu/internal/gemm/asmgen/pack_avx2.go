package main

import (
	"bytes"
	"fmt"
)

// The packing routines of the AVX2 level, with the contracts of their
// AVX-512 counterparts. Partial vectors use VMASKMOVPS with lane masks read
// from maskTableAVX2: the 8 int32 at byte offset 32-4n have their first n
// lanes set.

// maskTableAVX2 emits the mask table: eight all-ones words, eight zeros.
func maskTableAVX2(s *bytes.Buffer) {
	s.WriteString("\n// maskTableAVX2<>+(32-4n) holds 8 int32 lane masks, the first n set.\n")
	for i := 0; i < 16; i++ {
		v := "0xffffffff"
		if i >= 8 {
			v = "0x00000000"
		}
		fmt.Fprintf(s, "DATA maskTableAVX2<>+%d(SB)/4, $%s\n", 4*i, v)
	}
	s.WriteString("GLOBL maskTableAVX2<>(SB), RODATA|NOPTR, $64\n")
}

// maskAddrAVX2 emits code that points register dst at the mask of the first
// n lanes, n (0..8) in register n, which is negated.
func maskAddrAVX2(w func(string, ...any), n, dst string) {
	w("NEGQ %s", n)
	w("LEAQ maskTableAVX2<>+32(SB), %s", dst)
	w("LEAQ (%s)(%s*4), %s", dst, n, dst)
}

// packTransposeAVX2 emits
//
//	func packTranspose8AVX2(dst *float32, w int, src *float32, ld, depth, lines int)
//
// which, for 1 ≤ lines ≤ 8, writes lane r < lines of group p (at dst + p*w
// floats) with src[r*ld + p] for p < depth: an 8×8 register transpose per 8
// depth steps. All sixteen ymm registers hold rows and temporaries, so the
// masks are reloaded from memory where needed.
func packTransposeAVX2(s, g *bytes.Buffer) {
	const sym = "packTranspose8AVX2"
	g.WriteString(`
// packTranspose8AVX2 writes lane r < lines (1 ≤ lines ≤ 8) of the depth
// groups of w floats at dst with src[r*ld+p], p < depth.
//
//go:noescape
func packTranspose8AVX2(dst *float32, w int, src *float32, ld, depth, lines int)
`)
	w := func(format string, args ...any) { fmt.Fprintf(s, "\t"+format+"\n", args...) }
	label := func(l string) { fmt.Fprintf(s, "%s_%s:\n", sym, l) }
	fmt.Fprintf(s, "\n// func %s(dst *float32, w int, src *float32, ld, depth, lines int)\n", sym)
	fmt.Fprintf(s, "TEXT ·%s(SB), NOSPLIT, $0-48\n", sym)
	w("MOVQ dst+0(FP), DI")
	w("MOVQ w+8(FP), R13")
	w("SHLQ $2, R13")
	w("MOVQ src+16(FP), SI")
	w("MOVQ ld+24(FP), R8")
	w("SHLQ $2, R8")
	w("MOVQ depth+32(FP), CX")
	w("MOVQ lines+40(FP), DX")
	w("LEAQ (R8)(R8*2), R9")
	w("LEAQ (SI)(R8*4), R10")
	w("MOVQ DX, AX")
	maskAddrAVX2(w, "AX", "R12") // R12: store mask of the valid lanes
	w("MOVQ CX, BX")
	w("SHRQ $3, BX")
	w("JZ %s_tail", sym)
	label("loop")
	loadRows8(w, label, sym, "loop", false)
	transpose8(w)
	stores8(w, sym, 8)
	w("ADDQ $32, SI")
	w("ADDQ $32, R10")
	w("DECQ BX")
	w("JNZ %s_loop", sym)
	label("tail")
	w("ANDQ $7, CX")
	w("JZ %s_done", sym)
	w("MOVQ CX, AX")
	maskAddrAVX2(w, "AX", "R11") // R11: load mask of the remaining depth steps
	w("VMOVDQU (R11), Y0")
	loadRows8(w, label, sym, "tail", true)
	transpose8(w)
	stores8(w, sym, 7)
	label("done")
	w("VZEROUPPER")
	w("RET")
}

// stores8 stores columns Y0..Y(n-1) under the lane mask at (R12), one group
// each; with n < 8 it stops after CX groups.
func stores8(w func(string, ...any), sym string, n int) {
	w("VMOVDQU (R12), Y8")
	for q := 0; q < n; q++ {
		w("VMASKMOVPS Y%d, Y8, (DI)", q)
		w("ADDQ R13, DI")
		if n < 8 {
			w("CMPQ CX, $%d", q+1)
			w("JEQ %s_done", sym)
		}
	}
}

// loadRows8 loads line r < lines into Y(8+r), under the mask in Y0 when
// masked, and zeroes the others.
func loadRows8(w func(string, ...any), label func(string), sym, tag string, masked bool) {
	bases := []string{"SI", "R10"}
	idx := []string{"", "(R8*1)", "(R8*2)", "(R9*1)"}
	for r := 0; r < 8; r++ {
		w("VXORPS Y%d, Y%d, Y%d", 8+r, 8+r, 8+r)
	}
	for r := 0; r < 8; r++ {
		if r > 0 {
			w("CMPQ DX, $%d", r)
			w("JLE %s_%sloaded", sym, tag)
		}
		if masked {
			w("VMASKMOVPS (%s)%s, Y0, Y%d", bases[r/4], idx[r%4], 8+r)
		} else {
			w("VMOVUPS (%s)%s, Y%d", bases[r/4], idx[r%4], 8+r)
		}
	}
	label(tag + "loaded")
}

// transpose8 transposes Y8..Y15 (rows) into Y0..Y7 (columns).
func transpose8(w func(string, ...any)) {
	for i := 0; i < 4; i++ {
		r0, r1 := 8+2*i, 9+2*i
		w("VUNPCKLPS Y%d, Y%d, Y%d", r1, r0, 2*i)
		w("VUNPCKHPS Y%d, Y%d, Y%d", r1, r0, 2*i+1)
	}
	for h := 0; h < 2; h++ {
		t0, t1, t2, t3 := 4*h, 4*h+1, 4*h+2, 4*h+3
		u := 8 + 4*h
		w("VSHUFPS $0x44, Y%d, Y%d, Y%d", t2, t0, u)
		w("VSHUFPS $0xEE, Y%d, Y%d, Y%d", t2, t0, u+1)
		w("VSHUFPS $0x44, Y%d, Y%d, Y%d", t3, t1, u+2)
		w("VSHUFPS $0xEE, Y%d, Y%d, Y%d", t3, t1, u+3)
	}
	for c := 0; c < 4; c++ {
		w("VPERM2F128 $0x20, Y%d, Y%d, Y%d", 12+c, 8+c, c)
		w("VPERM2F128 $0x31, Y%d, Y%d, Y%d", 12+c, 8+c, 4+c)
	}
}

// packCopyAVX2 emits
//
//	func packCopyAVX2(dst *float32, w, pstride int, src *float32, ld, depth, np int)
//
// with the contract of packCopyAVX512: 1 ≤ w ≤ 64.
func packCopyAVX2(s, g *bytes.Buffer) {
	const sym = "packCopyAVX2"
	g.WriteString(`
// packCopyAVX2 copies, for p < depth and q < np, the w floats (1 ≤ w ≤ 64)
// at src[p*ld+q*w] to dst[q*pstride+p*w].
//
//go:noescape
func packCopyAVX2(dst *float32, w, pstride int, src *float32, ld, depth, np int)
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
	// Y1: mask of the last vector of a group (w%8 lanes, or all 8).
	w("LEAQ -1(R13), AX")
	w("ANDQ $7, AX")
	w("INCQ AX")
	maskAddrAVX2(w, "AX", "R12")
	w("VMOVDQU (R12), Y1")
	w("LEAQ -1(R13), DX")
	w("SHRQ $3, DX") // full vectors before the last one
	w("SHLQ $2, R13")
	w("MOVQ np+48(FP), BX")
	w("TESTQ CX, CX")
	w("JLE %s_done", sym)
	w("TESTQ BX, BX")
	w("JLE %s_done", sym)
	label("row")
	w("MOVQ SI, R9")
	w("MOVQ DI, R10")
	w("MOVQ BX, R11")
	label("panel")
	w("XORQ AX, AX")
	w("MOVQ DX, R12")
	w("TESTQ R12, R12")
	w("JZ %s_last", sym)
	label("vec")
	w("VMOVUPS (R9)(AX*1), Y0")
	w("VMOVUPS Y0, (R10)(AX*1)")
	w("ADDQ $32, AX")
	w("DECQ R12")
	w("JNZ %s_vec", sym)
	label("last")
	w("VMASKMOVPS (R9)(AX*1), Y1, Y0")
	w("VMASKMOVPS Y0, Y1, (R10)(AX*1)")
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
