package main

import (
	"bytes"
	"fmt"
)

// The window kernels: pure-Go pool_go.go's loops, each element computed
// as there (the same compares and selections, the same additions in the
// same order), on whole vectors; the Go wrappers in pool_arm64.go do the
// columns the vectors leave.

// windowKernels writes the window kernels.
func windowKernels(s, g *bytes.Buffer) {
	maxPool2x2(s, g, false)
	maxPool2x2(s, g, true)
	maxUnpool2x2(s, g)
	col2im3x3(s, g)
	conv3x3(s, g)
	addBlocks(s, g)
	splitPairs(s, g)
}

// splitPairs writes splitPairsNEON: goSplitPairs for the first pairs&^3
// pairs, LD2 splitting eight floats into their even and odd halves, two
// such steps an iteration while eight pairs remain.
func splitPairs(s, g *bytes.Buffer) {
	const sig = "even []float32, odd []float32, x []float32, pairs int"
	w := kernel(s, g, "splitPairsNEON", "("+sig+")", 80, "splitPairsNEON is goSplitPairs for the first pairs&^3 pairs.")
	w.Op("MOVD even_base+0(FP), R0")
	w.Op("MOVD odd_base+24(FP), R1")
	w.Op("MOVD x_base+48(FP), R2")
	w.Op("MOVD pairs+72(FP), R3")
	w.Op("LSR $3, R3, R4") // steps of eight pairs
	w.Op("CBZ R4, four")
	w.Label("eight")
	w.Op("VLD2.P 32(R2), [V0.S4, V1.S4]")
	w.Op("VLD2.P 32(R2), [V2.S4, V3.S4]")
	w.Op("VST1.P [V0.S4], 16(R0)")
	w.Op("VST1.P [V1.S4], 16(R1)")
	w.Op("VST1.P [V2.S4], 16(R0)")
	w.Op("VST1.P [V3.S4], 16(R1)")
	w.Op("SUBS $1, R4")
	w.Op("BNE eight")
	w.Label("four")
	w.Op("TBZ $2, R3, done") // a step of four pairs left
	w.Op("VLD2 (R2), [V0.S4, V1.S4]")
	w.Op("VST1 [V0.S4], (R0)")
	w.Op("VST1 [V1.S4], (R1)")
	w.Label("done")
	w.Op("RET")
}

// maxPool2x2 writes maxPool2x2NEON (withIdx: maxPool2x2IdxNEON, which
// also writes the indices): goMaxPool2x2 for the outputs of columns
// c < ow&^3 of every row, four outputs a step. LD2 splits a row's eight
// inputs into the windows' even and odd columns; each candidate replaces
// the running winner best where MaxMask holds (v > best, or v is NaN),
// and its code (0, 1, iw, iw+1) replaces the winner's.
func maxPool2x2(s, g *bytes.Buffer, withIdx bool) {
	name := "maxPool2x2NEON"
	doc := "goMaxPool2x2 for the outputs of columns c < ow&^3 of every row (idx is not written)"
	if withIdx {
		name = "maxPool2x2IdxNEON"
		doc = "goMaxPool2x2, indices included, for the outputs of columns c < ow&^3 of every row"
	}
	const sig = "out []float32, idx []int32, x []float32, ldx, iw, oh, ow int"
	w := kernel(s, g, name, "("+sig+")", 104, name+" is "+doc+".")
	w.Op("MOVD out_base+0(FP), R0")
	w.Op("MOVD idx_base+24(FP), R1")
	w.Op("MOVD x_base+48(FP), R2")
	w.Op("MOVD ldx+72(FP), R3")
	w.Op("MOVD iw+80(FP), R4")
	w.Op("MOVD oh+88(FP), R5")
	w.Op("MOVD ow+96(FP), R6")
	w.Op("LSR $2, R6, R7") // steps a row
	w.Op("CBZ R7, done")
	w.Op("CBZ R5, done")
	w.Op("LSL $2, R3") // ldx in bytes
	w.Op("LSL $2, R6") // ow in bytes: the output rows' stride
	// v20: 2c for the step's four outputs; v21: 8, their step; v22–v24:
	// the codes 1, iw and iw+1; R12: 2 r iw, R11 its step.
	for i := 0; i < 4; i++ {
		w.Op("MOVW $%d, R9", 2*i)
		w.Op("VMOV R9, V20.S[%d]", i)
	}
	w.Op("MOVW $8, R9")
	w.Op("VDUP R9, V21.S4")
	w.Op("MOVW $1, R9")
	w.Op("VDUP R9, V22.S4")
	w.Op("VDUP R4, V23.S4")
	w.Op("ADD $1, R4, R9")
	w.Op("VDUP R9, V24.S4")
	w.Op("MOVD ZR, R12")
	w.Op("LSL $1, R4, R11")
	w.Label("row")
	w.Op("MOVD R2, R13")                 // input row 2r
	w.Op("ADD R3, R2, R14")              // input row 2r+1
	w.Op("MOVD R0, R15")                 // output row
	w.Op("MOVD R1, R19")                 // index row
	w.Op("MOVD R7, R20")                 // steps
	w.Op("VDUP R12, V26.S4")             // 2 r iw
	w.Neon("add v26.4s, v26.4s, v20.4s") // + 2c
	w.Label("step")
	w.Op("VLD2.P 32(R13), [V0.S4, V1.S4]")
	w.Op("VLD2.P 32(R14), [V2.S4, V3.S4]")
	w.Op("VEOR V5.B16, V5.B16, V5.B16") // the winner's code
	for i, code := range []int{22, 23, 24} {
		v := 1 + i // the candidates (0, 1), (1, 0), (1, 1)
		w.Neon("fcmgt v6.4s, v%d.4s, v0.4s", v)
		w.Neon("fcmeq v7.4s, v%d.4s, v%d.4s", v, v)
		w.Neon("orn v6.16b, v6.16b, v7.16b") // MaxMask: greater, or NaN
		w.Neon("bit v0.16b, v%d.16b, v6.16b", v)
		if withIdx {
			w.Neon("bit v5.16b, v%d.16b, v6.16b", code)
		}
	}
	w.Op("VST1.P [V0.S4], 16(R15)")
	if withIdx {
		w.Neon("add v5.4s, v5.4s, v26.4s")
		w.Op("VST1.P [V5.S4], 16(R19)")
		w.Neon("add v26.4s, v26.4s, v21.4s")
	}
	w.Op("SUBS $1, R20")
	w.Op("BNE step")
	w.Op("ADD R3<<1, R2")
	w.Op("ADD R6, R0")
	w.Op("ADD R6, R1")
	w.Op("ADD R11, R12")
	w.Op("SUBS $1, R5")
	w.Op("BNE row")
	w.Label("done")
	w.Op("RET")
}

// col2im3x3 writes col2im3x3NEON: goCol2Im3x3 for the columns
// 2 <= j < 2 + 4((ow-2)/4) of every row (the columns every tap reaches),
// which the caller makes at least four. Each valid tap row a (0 <= i-a <
// oh) is one pass over the row, adding its three taps b = 0, 1, 2 to the
// sum so far: zero before the first pass (as goCol2Im3x3 clears the row),
// the row's stored partial sum after it, so every element gets its taps
// added in goCol2Im3x3's order.
func col2im3x3(s, g *bytes.Buffer) {
	const sig = "dx []float32, ldx int, col []float32, ts, oh, ow int"
	w := kernel(s, g, "col2im3x3NEON", "("+sig+")", 80,
		"col2im3x3NEON is goCol2Im3x3 for the columns 2 <= j < 2 + 4((ow-2)/4) of\n"+
			"every row; (ow-2)/4 must be at least 1.")
	w.Op("MOVD dx_base+0(FP), R0")
	w.Op("MOVD ldx+24(FP), R1")
	w.Op("MOVD col_base+32(FP), R2")
	w.Op("MOVD ts+56(FP), R3")
	w.Op("MOVD oh+64(FP), R4")
	w.Op("MOVD ow+72(FP), R5")
	w.Op("SUB $2, R5, R6")
	w.Op("LSR $2, R6") // vectors a row
	w.Op("LSL $2, R1")
	w.Op("LSL $2, R3")
	w.Op("LSL $2, R5")
	w.Op("ADD $8, R0")      // column 2
	w.Op("ADD $2, R4, R15") // rows
	w.Op("MOVD ZR, R7")     // i
	w.Label("row")
	w.Op("MOVD $1, R8") // no pass yet
	for a := 0; a < 3; a++ {
		skip := fmt.Sprintf("skip%d", a)
		w.Op("SUB $%d, R7, R9", a) // r = i - a
		w.Op("CMP $0, R9")
		w.Op("BLT %s", skip)
		w.Op("CMP R4, R9")
		w.Op("BGE %s", skip)
		// Tap b's source for column j is col[(3a+b) ts + r ow + j - b],
		// from j = 2: p_b = col + 3a ts + r ow + 2 + b (ts - 1) floats.
		w.Op("MUL R5, R9, R10")
		w.Op("ADD R2, R10")
		w.Op("ADD $8, R10")
		if a > 0 {
			w.Op("MOVD $%d, R11", 3*a)
			w.Op("MUL R3, R11, R11")
			w.Op("ADD R11, R10")
		}
		w.Op("ADD R3, R10, R11")
		w.Op("SUB $4, R11")
		w.Op("ADD R3, R11, R12")
		w.Op("SUB $4, R12")
		w.Op("MOVD R0, R13")
		w.Op("MOVD R6, R14")
		for _, first := range []bool{true, false} {
			label := fmt.Sprintf("more%d", a)
			if first {
				label = fmt.Sprintf("first%d", a)
				w.Op("CBZ R8, more%d", a)
			}
			w.Label(label)
			if first {
				w.Op("VEOR V0.B16, V0.B16, V0.B16")
			} else {
				w.Op("VLD1 (R13), [V0.S4]")
			}
			w.Op("VLD1.P 16(R10), [V1.S4]")
			w.Op("VLD1.P 16(R11), [V2.S4]")
			w.Op("VLD1.P 16(R12), [V3.S4]")
			for v := 1; v <= 3; v++ {
				w.Neon("fadd v0.4s, v0.4s, v%d.4s", v)
			}
			w.Op("VST1.P [V0.S4], 16(R13)")
			w.Op("SUBS $1, R14")
			w.Op("BNE %s", label)
			if first {
				w.Op("B passed%d", a)
			}
		}
		w.Label(fmt.Sprintf("passed%d", a))
		w.Op("MOVD ZR, R8")
		w.Label(skip)
	}
	w.Op("ADD R1, R0")
	w.Op("ADD $1, R7")
	w.Op("CMP R15, R7")
	w.Op("BLT row")
	w.Op("RET")
}

// addBlocks writes addBlocksNEON: goAddBlocks whole, block after block and
// row after row, 16 floats a step, then 4, then one.
func addBlocks(s, g *bytes.Buffer) {
	const sig = "dst []float32, ldd, bd int, src []float32, lds, bs int, blocks, rows, cols int"
	w := kernel(s, g, "addBlocksNEON", "("+sig+")", 104, "addBlocksNEON is goAddBlocks; blocks, rows and cols must be positive.")
	w.Op("MOVD dst_base+0(FP), R0")
	w.Op("MOVD ldd+24(FP), R1")
	w.Op("MOVD bd+32(FP), R2")
	w.Op("MOVD src_base+40(FP), R3")
	w.Op("MOVD lds+64(FP), R4")
	w.Op("MOVD bs+72(FP), R5")
	w.Op("MOVD blocks+80(FP), R6")
	w.Op("MOVD cols+96(FP), R8")
	for _, r := range []int{1, 2, 4, 5} {
		w.Op("LSL $2, R%d", r)
	}
	w.Label("block")
	w.Op("MOVD rows+88(FP), R7")
	w.Op("MOVD R0, R9")  // row of dst
	w.Op("MOVD R3, R10") // row of src
	w.Label("row")
	w.Op("MOVD R9, R11")
	w.Op("MOVD R10, R12")
	w.Op("LSR $4, R8, R13")
	w.Op("CBZ R13, four")
	w.Label("sixteen")
	w.Op("VLD1 (R11), [V0.S4, V1.S4, V2.S4, V3.S4]")
	w.Op("VLD1.P 64(R12), [V4.S4, V5.S4, V6.S4, V7.S4]")
	for v := 0; v < 4; v++ {
		w.Neon("fadd v%d.4s, v%d.4s, v%d.4s", v, v, v+4)
	}
	w.Op("VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R11)")
	w.Op("SUBS $1, R13")
	w.Op("BNE sixteen")
	w.Label("four")
	w.Op("UBFX $2, R8, $2, R13")
	w.Op("CBZ R13, one")
	w.Label("fours")
	w.Op("VLD1 (R11), [V0.S4]")
	w.Op("VLD1.P 16(R12), [V4.S4]")
	w.Neon("fadd v0.4s, v0.4s, v4.4s")
	w.Op("VST1.P [V0.S4], 16(R11)")
	w.Op("SUBS $1, R13")
	w.Op("BNE fours")
	w.Label("one")
	w.Op("AND $3, R8, R13")
	w.Op("CBZ R13, rowdone")
	w.Label("ones")
	w.Op("FMOVS (R11), F0")
	w.Op("FMOVS.P 4(R12), F1")
	w.Op("FADDS F1, F0, F0")
	w.Op("FMOVS.P F0, 4(R11)")
	w.Op("SUBS $1, R13")
	w.Op("BNE ones")
	w.Label("rowdone")
	w.Op("ADD R1, R9")
	w.Op("ADD R4, R10")
	w.Op("SUBS $1, R7")
	w.Op("BNE row")
	w.Op("ADD R2, R0")
	w.Op("ADD R5, R3")
	w.Op("SUBS $1, R6")
	w.Op("BNE block")
	w.Op("RET")
}

// conv3x3 writes conv3x3NEON: goConv3x3 for the columns c < cols&^3 of
// every row, one vector of four outputs a step summed in a register: from
// zero (or y's value when acc is set), each tap's product rounded (FMUL)
// and then added (FADD) in goConv3x3's order, so every output is the Go
// level's to the bit. Tap (a, b) reads its row from its own pointer,
// 4b bytes into input row r+a.
func conv3x3(s, g *bytes.Buffer) {
	const sig = "y []float32, ldy int, x []float32, ldx int, w []float32, rows, cols int, acc bool"
	w := kernel(s, g, "conv3x3NEON", "("+sig+")", 105, "conv3x3NEON is goConv3x3 for the columns c < cols&^3 of every row.")
	w.Op("MOVD y_base+0(FP), R0")
	w.Op("MOVD ldy+24(FP), R1")
	w.Op("MOVD x_base+32(FP), R2")
	w.Op("MOVD ldx+56(FP), R3")
	w.Op("MOVD w_base+64(FP), R4")
	w.Op("MOVD rows+88(FP), R5")
	w.Op("MOVD cols+96(FP), R6")
	w.Op("MOVBU acc+104(FP), R7")
	w.Op("LSR $2, R6") // vectors a row
	w.Op("CBZ R6, done")
	w.Op("CBZ R5, done")
	w.Op("LSL $2, R1")
	w.Op("LSL $2, R3")
	w.Op("VLD1 (R4), [V16.S4, V17.S4]")              // w[0..8) by element
	w.Op("FMOVS 32(R4), F18")                        // w[8] in v18.s[0]
	ptrs := []int{9, 10, 11, 13, 14, 15, 19, 20, 21} // tap t's pointer
	w.Label("row")
	w.Op("MOVD R0, R8")
	w.Op("MOVD R6, R12")
	for a := 0; a < 3; a++ {
		p := ptrs[3*a]
		switch a {
		case 0:
			w.Op("MOVD R2, R%d", p)
		case 1:
			w.Op("ADD R3, R2, R%d", p)
		case 2:
			w.Op("ADD R3<<1, R2, R%d", p)
		}
		w.Op("ADD $4, R%d, R%d", p, ptrs[3*a+1])
		w.Op("ADD $8, R%d, R%d", p, ptrs[3*a+2])
	}
	w.Op("CBNZ R7, accstep")
	for _, acc := range []bool{false, true} {
		label := "zstep"
		if acc {
			label = "accstep"
		}
		w.Label(label)
		if acc {
			w.Op("VLD1 (R8), [V0.S4]")
		} else {
			w.Op("VEOR V0.B16, V0.B16, V0.B16")
		}
		for t, p := range ptrs {
			w.Op("VLD1.P 16(R%d), [V%d.S4]", p, 1+t)
		}
		for t := range ptrs {
			w.Neon("fmul v%d.4s, v%d.4s, %s", 1+t, 1+t, elemOf(16, t))
			w.Neon("fadd v0.4s, v0.4s, v%d.4s", 1+t)
		}
		w.Op("VST1.P [V0.S4], 16(R8)")
		w.Op("SUBS $1, R12")
		w.Op("BNE %s", label)
		if !acc {
			w.Op("B rowdone")
		}
	}
	w.Label("rowdone")
	w.Op("ADD R1, R0")
	w.Op("ADD R3, R2")
	w.Op("SUBS $1, R5")
	w.Op("BNE row")
	w.Label("done")
	w.Op("RET")
}

// maxUnpool2x2 writes maxUnpool2x2NEON: goMaxUnpool2x2 for the outputs of
// columns c < ow&^3 of every row, four a step. An output's code, its
// index less 2r iw + 2c, must be 0, 1, iw or iw+1 (goMaxUnpool2x2's test,
// in int32: the caller keeps 2 oh iw within int32); each of the window's
// four positions gets the gradient where the code names it and zero
// elsewhere, ST2 interleaving the even and odd columns of each row. It
// returns false at the first step with a code that names none.
func maxUnpool2x2(s, g *bytes.Buffer) {
	const sig = "dx, dy []float32, idx []int32, ldx, iw, oh, ow int"
	w := kernel(s, g, "maxUnpool2x2NEON", "("+sig+") bool", 105,
		"maxUnpool2x2NEON is goMaxUnpool2x2 for the outputs of columns c < ow&^3\n"+
			"of every row; 2 oh iw must fit in an int32.")
	w.Op("MOVD dx_base+0(FP), R0")
	w.Op("MOVD dy_base+24(FP), R1")
	w.Op("MOVD idx_base+48(FP), R2")
	w.Op("MOVD ldx+72(FP), R3")
	w.Op("MOVD iw+80(FP), R4")
	w.Op("MOVD oh+88(FP), R5")
	w.Op("MOVD ow+96(FP), R6")
	w.Op("LSR $2, R6, R7") // steps a row
	w.Op("CBZ R7, valid")
	w.Op("CBZ R5, valid")
	w.Op("LSL $2, R3") // ldx in bytes
	w.Op("LSL $2, R6") // ow in bytes: dy's and idx's rows
	// v20: 2c for the step's four outputs, v21: 8, v22–v24: the codes 1,
	// iw and iw+1, v25: 0; R12: 2 r iw, R11 its step.
	for i := 0; i < 4; i++ {
		w.Op("MOVW $%d, R9", 2*i)
		w.Op("VMOV R9, V20.S[%d]", i)
	}
	w.Op("MOVW $8, R9")
	w.Op("VDUP R9, V21.S4")
	w.Op("MOVW $1, R9")
	w.Op("VDUP R9, V22.S4")
	w.Op("VDUP R4, V23.S4")
	w.Op("ADD $1, R4, R9")
	w.Op("VDUP R9, V24.S4")
	w.Op("VEOR V25.B16, V25.B16, V25.B16")
	w.Op("MOVD ZR, R12")
	w.Op("LSL $1, R4, R11")
	w.Label("row")
	w.Op("MOVD R0, R13")    // dx row 2r
	w.Op("ADD R3, R0, R14") // dx row 2r+1
	w.Op("MOVD R1, R15")
	w.Op("MOVD R2, R19")
	w.Op("MOVD R7, R20")
	w.Op("VDUP R12, V26.S4")
	w.Neon("add v26.4s, v26.4s, v20.4s") // 2 r iw + 2c
	w.Label("step")
	w.Op("VLD1.P 16(R15), [V0.S4]") // gradients
	w.Op("VLD1.P 16(R19), [V1.S4]") // indices
	w.Neon("sub v1.4s, v1.4s, v26.4s")
	for i, code := range []int{25, 22, 23, 24} { // positions (0, 0), (0, 1), (1, 0), (1, 1)
		w.Neon("cmeq v%d.4s, v1.4s, v%d.4s", 2+i, code)
	}
	w.Neon("orr v6.16b, v2.16b, v3.16b")
	w.Neon("orr v7.16b, v4.16b, v5.16b")
	w.Neon("orr v6.16b, v6.16b, v7.16b")
	w.Neon("uminv s6, v6.4s")
	w.Op("FMOVS F6, R9")
	w.Op("CBZW R9, invalid")
	for i := 0; i < 4; i++ {
		w.Neon("and v%d.16b, v%d.16b, v0.16b", 2+i, 2+i)
	}
	w.Op("VST2.P [V2.S4, V3.S4], 32(R13)")
	w.Op("VST2.P [V4.S4, V5.S4], 32(R14)")
	w.Neon("add v26.4s, v26.4s, v21.4s")
	w.Op("SUBS $1, R20")
	w.Op("BNE step")
	w.Op("ADD R3<<1, R0")
	w.Op("ADD R6, R1")
	w.Op("ADD R6, R2")
	w.Op("ADD R11, R12")
	w.Op("SUBS $1, R5")
	w.Op("BNE row")
	w.Label("valid")
	w.Op("MOVD $1, R9")
	w.Op("MOVB R9, ret+104(FP)")
	w.Op("RET")
	w.Label("invalid")
	w.Op("MOVB ZR, ret+104(FP)")
	w.Op("RET")
}
