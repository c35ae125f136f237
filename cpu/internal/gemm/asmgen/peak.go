package main

import (
	"bytes"
	"fmt"
)

// peakLoop is a loop of independent FMAs that measures the FMA throughput
// ceiling: chains accumulators, each updated once per iteration.
type peakLoop struct {
	isa    isa
	chains int
}

var peaks = []peakLoop{
	{isa: avx512, chains: 24},
	{isa: avx2, chains: 12},
}

func (p peakLoop) symbol() string { return "fmaPeak" + p.isa.name }

func (p peakLoop) proto(g *bytes.Buffer) {
	fmt.Fprintf(g, "\n// %s runs n iterations of %d independent %s VFMADD231PS (%d float32 FLOPs per iteration).\n",
		p.symbol(), p.chains, p.isa.name, p.chains*p.isa.width*2)
	fmt.Fprintf(g, "func %s(n int)\n\n", p.symbol())
	fmt.Fprintf(g, "// flopsPerIter%s is the float32 FLOPs of one iteration of %s.\n", p.isa.name, p.symbol())
	fmt.Fprintf(g, "const flopsPerIter%s = %d\n", p.isa.name, p.chains*p.isa.width*2)
}

func (p peakLoop) emit(s *bytes.Buffer) {
	if p.chains+2 > p.isa.numRegs {
		panic("asmgen: too many peak chains")
	}
	sym := p.symbol()
	w := func(format string, args ...any) { fmt.Fprintf(s, "\t"+format+"\n", args...) }
	fmt.Fprintf(s, "\n// func %s(n int)\nTEXT ·%s(SB), NOSPLIT, $0-8\n", sym, sym)
	w("MOVQ n+0(FP), CX")
	// Nonzero operands (x = 1+2^-23, y = 2^-20, accumulators from 1) keep
	// every bit of the datapath toggling, as real data does: zeros would let
	// the core draw less power and clock higher than a real product can.
	w("MOVL $0x3f800001, AX")
	w("MOVQ AX, X0")
	w("VBROADCASTSS X0, %s%d", p.isa.reg, p.chains)
	w("MOVL $0x35800000, AX")
	w("MOVQ AX, X0")
	w("VBROADCASTSS X0, %s%d", p.isa.reg, p.chains+1)
	w("MOVL $0x3f800000, AX")
	w("MOVQ AX, X0")
	w("VBROADCASTSS X0, %s0", p.isa.reg)
	for i := 1; i < p.chains; i++ {
		w("VMOVAPS %s0, %s%d", p.isa.reg, p.isa.reg, i)
	}
	w("TESTQ CX, CX")
	w("JLE %s_done", sym)
	x := fmt.Sprintf("%s%d", p.isa.reg, p.chains)
	y := fmt.Sprintf("%s%d", p.isa.reg, p.chains+1)
	fmt.Fprintf(s, "%s_loop:\n", sym)
	for i := 0; i < p.chains; i++ {
		w("VFMADD231PS %s, %s, %s%d", x, y, p.isa.reg, i)
	}
	w("DECQ CX")
	w("JNZ %s_loop", sym)
	fmt.Fprintf(s, "%s_done:\n", sym)
	w("VZEROUPPER")
	w("RET")
}
