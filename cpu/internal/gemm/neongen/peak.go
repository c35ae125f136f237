package main

import (
	"bytes"
	"fmt"
)

// peakAccs is the number of independent FMLA chains of the peak loop:
// enough to cover four pipes of four-cycle latency with room to spare.
const peakAccs = 24

// peak writes fmaPeakNEON, the FMA throughput loop that PeakGFLOPS times.
func peak(s *bytes.Buffer, g *bytes.Buffer) {
	fmt.Fprintf(g, `
// flopsPerIterNEON is the FLOPs of one iteration of fmaPeakNEON.
const flopsPerIterNEON = %d

// fmaPeakNEON runs n iterations of %d independent 4-lane FMLAs.
//
//go:noescape
func fmaPeakNEON(n int)
`, peakAccs*8, peakAccs)
	w := writer{S: s}
	s.WriteString("\n// func fmaPeakNEON(n int)\n")
	s.WriteString("TEXT ·fmaPeakNEON(SB), NOSPLIT, $0-8\n")
	w.Op("MOVD n+0(FP), R0")
	for i := 0; i < peakAccs; i++ {
		w.Op("VEOR V%d.B16, V%d.B16, V%d.B16", i, i, i)
	}
	w.Op("VEOR V30.B16, V30.B16, V30.B16")
	w.Op("VEOR V31.B16, V31.B16, V31.B16")
	w.Op("CBZ R0, done")
	w.Label("loop")
	for i := 0; i < peakAccs; i++ {
		w.Neon("fmla v%d.4s, v30.4s, v31.4s", i)
	}
	w.Op("SUBS $1, R0")
	w.Op("BNE loop")
	w.Label("done")
	w.Op("RET")
}
