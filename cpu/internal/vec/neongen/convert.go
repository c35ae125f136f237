package main

import "bytes"

// bfloatKernels writes the bfloat16 conversions, 16 elements a step for
// the first len&^15, with integer operations bit for bit as
// tensor/device's Float32ToBFloat16 and BFloat16ToFloat32: narrowing adds
// 0x7fff plus the lowest kept bit to each float's bits (a NaN instead gets
// the quiet bit) and keeps the high halves (UZP2); widening puts each half
// above a zero one (ZIP1/ZIP2 with a zero vector).
func bfloatKernels(s, g *bytes.Buffer) {
	w := kernel(s, g, "toBFloatNEON", "(dst []uint16, src []float32)", 48,
		"toBFloatNEON is device.Float32ToBFloat16 for i < len(dst)&^15.")
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

	kernel(s, g, "fromBFloatNEON", "(dst []float32, src []uint16)", 48,
		"fromBFloatNEON is device.BFloat16ToFloat32 for i < len(dst)&^15.")
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

// halfKernels writes the float16 conversions, 16 elements a step for the
// first len&^15, bit for bit as tensor/device's Float32ToFloat16 and
// Float16ToFloat32: FCVTN and FCVTL round to nearest even and widen
// exactly, and each NaN lane is then set as the contract has it (FCVTN
// keeps a NaN's payload where the contract gives the sign with 0x7e00;
// FCVTL quiets a signalling NaN where the contract keeps its bits, so the
// quiet bit is cleared again where the half's was clear).
func halfKernels(s, g *bytes.Buffer) {
	w := kernel(s, g, "toHalfNEON", "(dst []uint16, src []float32)", 48,
		"toHalfNEON is device.Float32ToFloat16 for i < len(dst)&^15.")
	w.Op("MOVD dst_base+0(FP), R0")
	w.Op("MOVD dst_len+8(FP), R9")
	w.Op("MOVD src_base+24(FP), R1")
	for i, c := range []uint32{0x80008000, 0x7e007e00} {
		w.Op("MOVW $0x%x, R2", c)
		w.Op("VDUP R2, V%d.S4", 20+i)
	}
	w.Op("LSR $4, R9")
	w.Op("CBZ R9, done")
	w.Label("loop")
	w.Op("VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]")
	w.Neon("fcvtn v8.4h, v0.4s")
	w.Neon("fcvtn2 v8.8h, v1.4s")
	w.Neon("fcvtn v9.4h, v2.4s")
	w.Neon("fcvtn2 v9.8h, v3.4s")
	for q := 0; q < 4; q++ {
		w.Neon("fcmeq v%d.4s, v%d.4s, v%d.4s", 12+q, q, q) // not NaN
	}
	w.Op("VUZP1 V13.H8, V12.H8, V16.H8") // the masks as halves
	w.Op("VUZP1 V15.H8, V14.H8, V17.H8")
	w.Op("VUZP2 V1.H8, V0.H8, V18.H8") // the floats' high halves
	w.Op("VUZP2 V3.H8, V2.H8, V19.H8")
	for _, v := range []int{18, 19} {
		w.Neon("and v%d.16b, v%d.16b, v20.16b", v, v)
		w.Neon("orr v%d.16b, v%d.16b, v21.16b", v, v) // a NaN: the sign with 0x7e00
	}
	w.Neon("bsl v16.16b, v8.16b, v18.16b")
	w.Neon("bsl v17.16b, v9.16b, v19.16b")
	w.Op("VST1.P [V16.H8, V17.H8], 32(R0)")
	w.Op("SUBS $1, R9")
	w.Op("BNE loop")
	w.Label("done")
	w.Op("RET")

	kernel(s, g, "fromHalfNEON", "(dst []float32, src []uint16)", 48,
		"fromHalfNEON is device.Float16ToFloat32 for i < len(dst)&^15.")
	w.Op("MOVD dst_base+0(FP), R0")
	w.Op("MOVD dst_len+8(FP), R9")
	w.Op("MOVD src_base+24(FP), R1")
	w.Op("VEOR V31.B16, V31.B16, V31.B16")
	w.Op("MOVW $0x400000, R2")
	w.Op("VDUP R2, V20.S4") // float32's quiet bit
	w.Op("LSR $4, R9")
	w.Op("CBZ R9, done")
	w.Label("loop")
	w.Op("VLD1.P 32(R1), [V0.H8, V1.H8]")
	w.Neon("fcvtl v2.4s, v0.4h")
	w.Neon("fcvtl2 v3.4s, v0.8h")
	w.Neon("fcvtl v4.4s, v1.4h")
	w.Neon("fcvtl2 v5.4s, v1.8h")
	w.Op("VZIP1 V0.H8, V31.H8, V6.H8") // h << 16 in each lane
	w.Op("VZIP2 V0.H8, V31.H8, V7.H8")
	w.Op("VZIP1 V1.H8, V31.H8, V8.H8")
	w.Op("VZIP2 V1.H8, V31.H8, V9.H8")
	for q := 0; q < 4; q++ {
		r, h := 2+q, 6+q
		w.Neon("ushr v%d.4s, v%d.4s, #3", h, h)          // the half's quiet bit at float32's
		w.Neon("bic v%d.16b, v20.16b, v%d.16b", h, h)    // the quiet bit where the half's is clear
		w.Neon("fcmeq v10.4s, v%d.4s, v%d.4s", r, r)     // not NaN
		w.Neon("bic v%d.16b, v%d.16b, v10.16b", h, h)    // … in NaN lanes
		w.Neon("bic v%d.16b, v%d.16b, v%d.16b", r, r, h) // cleared there
	}
	w.Op("VST1.P [V2.S4, V3.S4, V4.S4, V5.S4], 64(R0)")
	w.Op("SUBS $1, R9")
	w.Op("BNE loop")
	w.Label("done")
	w.Op("RET")
}

// widenKernels writes addWidenedNEON, dst[i] += float64(src[i]) for the
// first len&^7 elements, 8 a step: FCVTL widens exactly, FADD rounds each
// sum once.
func widenKernels(s, g *bytes.Buffer) {
	w := kernel(s, g, "addWidenedNEON", "(dst []float64, src []float32)", 48,
		"addWidenedNEON adds float64(src[i]) to dst[i] for i < len(src)&^7.")
	w.Op("MOVD dst_base+0(FP), R0")
	w.Op("MOVD src_base+24(FP), R1")
	w.Op("MOVD src_len+32(FP), R9")
	w.Op("LSR $3, R9")
	w.Op("CBZ R9, done")
	w.Label("loop")
	w.Op("VLD1.P 32(R1), [V0.S4, V1.S4]")
	w.Op("VLD1 (R0), [V4.D2, V5.D2, V6.D2, V7.D2]")
	w.Neon("fcvtl v2.2d, v0.2s")
	w.Neon("fcvtl2 v3.2d, v0.4s")
	w.Neon("fadd v4.2d, v4.2d, v2.2d")
	w.Neon("fadd v5.2d, v5.2d, v3.2d")
	w.Neon("fcvtl v2.2d, v1.2s")
	w.Neon("fcvtl2 v3.2d, v1.4s")
	w.Neon("fadd v6.2d, v6.2d, v2.2d")
	w.Neon("fadd v7.2d, v7.2d, v3.2d")
	w.Op("VST1.P [V4.D2, V5.D2, V6.D2, V7.D2], 64(R0)")
	w.Op("SUBS $1, R9")
	w.Op("BNE loop")
	w.Label("done")
	w.Op("RET")
}

// repeatKernels writes repeatRunsNEON, src[i] broadcast into dst[i*n:] in
// ceil(n/4) whole vectors a run, each run's last vector reaching into the
// next run, which overwrites it (the caller leaves room for the last run's).
func repeatKernels(s, g *bytes.Buffer) {
	w := kernel(s, g, "repeatRunsNEON", "(dst []float32, src []float32, n int)", 56,
		"repeatRunsNEON stores src[i] over dst[i*n:] in ceil(n/4) vectors a run; n >= 1.")
	w.Op("MOVD dst_base+0(FP), R0")
	w.Op("MOVD src_base+24(FP), R1")
	w.Op("MOVD src_len+32(FP), R9")
	w.Op("MOVD n+48(FP), R2")
	w.Op("CBZ R9, done")
	w.Op("LSL $2, R2, R3")
	w.Op("ADD $3, R2, R4")
	w.Op("LSR $2, R4")
	w.Label("run")
	w.Op("VLD1R.P 4(R1), [V0.S4]")
	w.Op("MOVD R0, R5")
	w.Op("MOVD R4, R6")
	w.Label("store")
	w.Op("VST1.P [V0.S4], 16(R5)")
	w.Op("SUBS $1, R6")
	w.Op("BNE store")
	w.Op("ADD R3, R0")
	w.Op("SUBS $1, R9")
	w.Op("BNE run")
	w.Label("done")
	w.Op("RET")
}

// argKernels writes argMaxIntoNEON and argMinIntoNEON: over the first
// len(x)&^3 elements, where x[i] beats best[i] (greater, or less; or x[i] is
// NaN and best[i] a number), best[i] = x[i] and idx[i] = row; ties keep
// best. poolMaxIntoNEON is max pooling's rule: x[i] takes the lane when it
// is greater or NaN.
func argKernels(s, g *bytes.Buffer) {
	for _, k := range []struct {
		name, beats string
		lastNaN     bool
	}{
		{"argMaxIntoNEON", "fcmgt v3.4s, v1.4s, v0.4s", false}, // x > best
		{"argMinIntoNEON", "fcmgt v3.4s, v0.4s, v1.4s", false}, // best > x
		{"poolMaxIntoNEON", "fcmgt v3.4s, v1.4s, v0.4s", true},
	} {
		name := k.name
		w := kernel(s, g, name, "(best []float32, idx []int32, x []float32, row int32)", 76,
			name+" sets best[i], idx[i] = x[i], row where x[i] beats best[i], for i < len(x)&^3.")
		w.Op("MOVD best_base+0(FP), R0")
		w.Op("MOVD idx_base+24(FP), R1")
		w.Op("MOVD x_base+48(FP), R2")
		w.Op("MOVD x_len+56(FP), R9")
		w.Op("MOVD $row+72(FP), R4")
		w.Op("VLD1R (R4), [V7.S4]")
		w.Op("LSR $2, R9")
		w.Op("CBZ R9, done")
		w.Label("loop")
		w.Op("VLD1 (R0), [V0.S4]")
		w.Op("VLD1.P 16(R2), [V1.S4]")
		w.Op("VLD1 (R1), [V2.S4]")
		w.Neon("%s", k.beats)
		w.Neon("fcmeq v4.4s, v1.4s, v1.4s") // x is a number
		if k.lastNaN {
			w.Neon("orn v3.16b, v3.16b, v4.16b") // x takes the lane
		} else {
			w.Neon("fcmeq v5.4s, v0.4s, v0.4s")  // best is a number
			w.Neon("bic v5.16b, v5.16b, v4.16b") // … and x is NaN
			w.Neon("orr v3.16b, v3.16b, v5.16b") // x takes the lane
		}
		w.Neon("bit v0.16b, v1.16b, v3.16b")
		w.Neon("bit v2.16b, v7.16b, v3.16b")
		w.Op("VST1.P [V0.S4], 16(R0)")
		w.Op("VST1.P [V2.S4], 16(R1)")
		w.Op("SUBS $1, R9")
		w.Op("BNE loop")
		w.Label("done")
		w.Op("RET")
	}
}
