package main

import (
	"bytes"
	"fmt"
)

// bfloatKernels writes the bfloat16 conversions, 16 elements a step for
// the first len&^15, with integer operations bit for bit as
// tensor/device's Float32ToBFloat16 and BFloat16ToFloat32: narrowing adds
// 0x7fff plus the lowest kept bit to each float's bits (a NaN instead gets
// the quiet bit) and keeps the high halves (UZP2); widening puts each half
// above a zero one (ZIP1/ZIP2 with a zero vector).
func bfloatKernels(s, g *bytes.Buffer) {
	fmt.Fprintf(g, "\n// toBFloatNEON is device.Float32ToBFloat16 for i < len(dst)&^15.\n//\n//go:noescape\nfunc toBFloatNEON(dst []uint16, src []float32)\n")
	w := writer{S: s}
	fmt.Fprintf(s, "\n// func toBFloatNEON(dst []uint16, src []float32)\n")
	fmt.Fprintf(s, "TEXT ·toBFloatNEON(SB), NOSPLIT, $0-48\n")
	w.Op("MOVD dst_base+0(FP), R0")
	w.Op("MOVD dst_len+8(FP), R9")
	w.Op("MOVD src_base+24(FP), R1")
	for i, c := range []uint32{1, 0x7fff, 0x400000} {
		w.Op("MOVW $0x%x, R2", c)
		w.Op("VDUP R2, V%d.S4", 20+i)
	}
	w.Op("LSR $4, R9")
	w.Op("CBZ R9, done")
	w.Label("loop")
	w.Op("VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]")
	for q := 0; q < 4; q++ {
		w.Neon("ushr v4.4s, v%d.4s, #16", q)
		w.Neon("and v4.16b, v4.16b, v20.16b")
		w.Neon("add v4.4s, v4.4s, v21.4s")
		w.Neon("add v%d.4s, v%d.4s, v4.4s", 8+q, q) // rounded
		w.Neon("orr v5.16b, v%d.16b, v22.16b", q)   // a NaN made quiet
		w.Neon("fcmeq v%d.4s, v%d.4s, v%d.4s", 12+q, q, q)
		w.Neon("bsl v%d.16b, v%d.16b, v5.16b", 12+q, 8+q)
	}
	w.Op("VUZP2 V13.H8, V12.H8, V16.H8") // the high halves, in order
	w.Op("VUZP2 V15.H8, V14.H8, V17.H8")
	w.Op("VST1.P [V16.H8, V17.H8], 32(R0)")
	w.Op("SUBS $1, R9")
	w.Op("BNE loop")
	w.Label("done")
	w.Op("RET")

	fmt.Fprintf(g, "\n// fromBFloatNEON is device.BFloat16ToFloat32 for i < len(dst)&^15.\n//\n//go:noescape\nfunc fromBFloatNEON(dst []float32, src []uint16)\n")
	fmt.Fprintf(s, "\n// func fromBFloatNEON(dst []float32, src []uint16)\n")
	fmt.Fprintf(s, "TEXT ·fromBFloatNEON(SB), NOSPLIT, $0-48\n")
	w.Op("MOVD dst_base+0(FP), R0")
	w.Op("MOVD dst_len+8(FP), R9")
	w.Op("MOVD src_base+24(FP), R1")
	w.Op("VEOR V31.B16, V31.B16, V31.B16")
	w.Op("LSR $4, R9")
	w.Op("CBZ R9, done")
	w.Label("loop")
	w.Op("VLD1.P 32(R1), [V0.H8, V1.H8]")
	w.Op("VZIP1 V0.H8, V31.H8, V2.H8") // zip1(0, h): h << 16 in each lane
	w.Op("VZIP2 V0.H8, V31.H8, V3.H8")
	w.Op("VZIP1 V1.H8, V31.H8, V4.H8")
	w.Op("VZIP2 V1.H8, V31.H8, V5.H8")
	w.Op("VST1.P [V2.S4, V3.S4, V4.S4, V5.S4], 64(R0)")
	w.Op("SUBS $1, R9")
	w.Op("BNE loop")
	w.Label("done")
	w.Op("RET")
}
