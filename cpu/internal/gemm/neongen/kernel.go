package main

import (
	"bytes"
	"fmt"
)

// kernel is the register-blocked micro-kernel for panels of mr rows of A
// (mr/4 vectors) and nv vectors of 4 columns of B, computing the first rows
// rows of the tile (rows < mr serve the last panel of A without computing
// its padding). With colB it reads B in place, k steps ldb floats apart
// (ldb in the pf argument; no L2 prefetch then).
type kernel struct {
	mr, nv, rows int
	colB         bool
}

// Register use: accumulators v0 … v(rows*nv-1), A in v24–v25, B in
// v26–v28, alpha in v29, beta in v30.
const (
	regA     = 24
	regB     = 26
	regAlpha = 29
	regBeta  = 30
)

// unroll is the number of k steps per iteration of the main loop; each
// iteration prefetches one line at pf (into L2) and one at pfA (into L1),
// as package gemm's kernelPrefetchSteps says.
const unroll = 4

func (k kernel) nr() int { return 4 * k.nv }

func (k kernel) symbol() string {
	s := fmt.Sprintf("sgemmKernel%dx%dNEON", k.mr, k.nr())
	if k.colB {
		s += "ColB"
	}
	if k.rows != k.mr {
		s += fmt.Sprintf("Rows%d", k.rows)
	}
	return s
}

func (k kernel) acc(r, v int) int { return r*k.nv + v }

func (k kernel) proto(g *bytes.Buffer) {
	fmt.Fprintf(g, "\n// %s computes a %d×%d tile of C = alpha*A*B + beta*C with NEON from k\n", k.symbol(), k.rows, k.nr())
	if k.colB {
		fmt.Fprintf(g, "// steps of packed A (groups of %d floats) and of B in place (%d floats a step, steps pf\n// floats apart).\n", k.mr, k.nr())
	} else {
		fmt.Fprintf(g, "// steps of packed A (groups of %d floats) and packed B (groups of %d floats).\n", k.mr, k.nr())
	}
	g.WriteString("// C rows are ldc floats apart; beta == 0 stores without reading C.\n")
	if k.colB {
		g.WriteString("// Each iteration of the unrolled k loop prefetches into L1 the next cache\n// line from address pfA (a hint: any address is safe).")
	} else {
		g.WriteString("// Each iteration of the unrolled k loop prefetches into L2 the next cache\n")
		g.WriteString("// line from address pf, and into L1 the next from pfA (hints: any address\n// is safe).")
	}
	g.WriteString(" Denormals are flushed to zero while it runs (FPCR.FZ).\n")
	g.WriteString("//\n//go:noescape\n")
	fmt.Fprintf(g, "func %s(k int, a, b, c *float32, ldc int, alpha, beta float32, pf, pfA uintptr)\n", k.symbol())
}

// table writes a Go array of the kernel and its variants indexed by rows.
func (k kernel) table(g *bytes.Buffer) {
	k.rows = k.mr
	fmt.Fprintf(g, "\n// %sByRows indexes %s and its partial-row variants by the rows they compute.\n", k.symbol(), k.symbol())
	fmt.Fprintf(g, "var %sByRows = [%d]func(k int, a, b, c *float32, ldc int, alpha, beta float32, pf, pfA uintptr){\n", k.symbol(), k.mr+1)
	for r := k.mr; r >= 1; r-- {
		v := k
		v.rows = r
		fmt.Fprintf(g, "%d: %s,\n", r, v.symbol())
	}
	g.WriteString("}\n")
}

// step emits one k step: load A and B, then the FMLAs row by row.
func (k kernel) step(w writer) {
	aVecs := (k.rows + 3) / 4
	if aVecs == 2 {
		w.Op("VLD1.P 32(R1), [V%d.S4, V%d.S4]", regA, regA+1)
	} else {
		w.Op("VLD1 (R1), [V%d.S4]", regA)
		w.Op("ADD $%d, R1", 4*k.mr)
	}
	if k.colB {
		w.Op("VLD1 (R2), [V%d.S4, V%d.S4, V%d.S4]", regB, regB+1, regB+2)
		w.Op("ADD R5, R2")
	} else {
		w.Op("VLD1.P %d(R2), [V%d.S4, V%d.S4, V%d.S4]", 16*k.nv, regB, regB+1, regB+2)
	}
	for r := 0; r < k.rows; r++ {
		for v := 0; v < k.nv; v++ {
			w.Neon("fmla v%d.4s, v%d.4s, v%d.s[%d]", k.acc(r, v), regB+v, regA+r/4, r%4)
		}
	}
}

// emit writes the kernel. Arguments: R0 k, R1 a, R2 b, R3 c, R4 ldc in
// bytes, R5 pf (ldb in bytes with colB), R6 pfA; R7 holds the caller's
// FPCR.
func (k kernel) emit(s *bytes.Buffer) {
	if k.nv != 3 || k.mr != 8 {
		panic("neongen: the register plan is for 8×12 kernels")
	}
	w := writer{S: s}
	sym := k.symbol()
	fmt.Fprintf(s, "\n// func %s(k int, a, b, c *float32, ldc int, alpha, beta float32, pf, pfA uintptr)\n", sym)
	fmt.Fprintf(s, "TEXT ·%s(SB), NOSPLIT, $0-64\n", sym)
	w.Op("MOVD k+0(FP), R0")
	w.Op("MOVD a+8(FP), R1")
	w.Op("MOVD b+16(FP), R2")
	w.Op("MOVD c+24(FP), R3")
	w.Op("MOVD ldc+32(FP), R4")
	w.Op("LSL $2, R4")
	w.Op("MOVD pf+48(FP), R5")
	if k.colB {
		w.Op("LSL $2, R5")
	}
	w.Op("MOVD pfA+56(FP), R6")
	// Flush denormals (FPCR.FZ) while the kernel runs, as the x86 kernels
	// do with MXCSR; the caller's mode is restored before returning.
	w.Op("MRS FPCR, R7")
	w.Op("ORR $(1<<24), R7, R8")
	w.Op("MSR R8, FPCR")
	for i := 0; i < k.rows*k.nv; i++ {
		w.Op("VEOR V%d.B16, V%d.B16, V%d.B16", i, i, i)
	}
	w.Op("LSR $2, R0, R9")
	w.Op("AND $3, R0, R10")
	w.Op("CBZ R9, tail")
	w.Label("loop")
	if !k.colB {
		w.Op("PRFM (R5), PLDL2KEEP")
		w.Op("ADD $64, R5")
	}
	w.Op("PRFM (R6), PLDL1KEEP")
	w.Op("ADD $64, R6")
	for range unroll {
		k.step(w)
	}
	w.Op("SUBS $1, R9")
	w.Op("BNE loop")
	w.Label("tail")
	w.Op("CBZ R10, store")
	w.Label("tailloop")
	k.step(w)
	w.Op("SUBS $1, R10")
	w.Op("BNE tailloop")
	w.Label("store")
	w.Op("FMOVS alpha+40(FP), F%d", regAlpha)
	w.Op("FMOVS beta+44(FP), F%d", regBeta)
	w.Op("MOVWU beta+44(FP), R12")
	w.Op("LSLW $1, R12") // ±0
	w.Op("CBZW R12, nobeta")
	// C = beta*C + alpha*acc, row by row.
	for r := 0; r < k.rows; r++ {
		w.Op("VLD1 (R3), [V%d.S4, V%d.S4, V%d.S4]", regA, regA+1, regA+2)
		for v := 0; v < k.nv; v++ {
			w.Neon("fmul v%d.4s, v%d.4s, v%d.s[0]", regA+v, regA+v, regBeta)
			w.Neon("fmla v%d.4s, v%d.4s, v%d.s[0]", regA+v, k.acc(r, v), regAlpha)
		}
		w.Op("VST1 [V%d.S4, V%d.S4, V%d.S4], (R3)", regA, regA+1, regA+2)
		w.Op("ADD R4, R3")
	}
	w.Op("B done")
	w.Label("nobeta")
	for r := 0; r < k.rows; r++ {
		for v := 0; v < k.nv; v++ {
			w.Neon("fmul v%d.4s, v%d.4s, v%d.s[0]", k.acc(r, v), k.acc(r, v), regAlpha)
		}
		w.Op("VST1 [V%d.S4, V%d.S4, V%d.S4], (R3)", k.acc(r, 0), k.acc(r, 1), k.acc(r, 2))
		w.Op("ADD R4, R3")
	}
	w.Label("done")
	w.Op("MSR R7, FPCR")
	w.Op("RET")
}
