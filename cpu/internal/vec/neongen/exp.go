package main

import (
	"bytes"
	"fmt"
	"math"
)

// expKernel writes expNEON, exp32 of package vec's scalar.go step for step
// on one vector of 4 floats an iteration: clamp to [expMin, expMax],
// n = round-to-even(x log2e), r = x - n ln2Hi - n ln2Lo (fused), the
// degree-4 polynomial by Horner with FMLA, t = q r² + r (fused), t = -1
// below expMin, then (t+1)·2^(n>>1)·2^(n-(n>>1)) with the powers of two
// built in the exponent field; a NaN lane returns its input.
func expKernel(c *coeffs, s, g *bytes.Buffer) {
	g.WriteString("\n// expNEON sets dst[i] = exp(x[i]) (exp32) for i < len(dst)&^3.\n//\n//go:noescape\nfunc expNEON(dst, x []float32)\n")
	w := writer{s}
	s.WriteString("\n// func expNEON(dst, x []float32)\n")
	s.WriteString("TEXT ·expNEON(SB), NOSPLIT, $0-48\n")
	w.op("MOVD dst_base+0(FP), R0")
	w.op("MOVD dst_len+8(FP), R9")
	w.op("MOVD x_base+24(FP), R1")
	// Constants: v16 log2e, v17 ln2Hi, v18 ln2Lo, v19 expMin, v20 expMax,
	// v21–v25 the polynomial, v26 1, v27 -1, v28 the int32 127.
	poly := c.arrays["expPoly"]
	if len(poly) != 5 {
		panic(fmt.Sprintf("neongen: expPoly has %d coefficients, the kernel is written for 5", len(poly)))
	}
	consts := []float32{c.get("log2e"), c.get("ln2Hi"), c.get("ln2Lo"), c.get("expMin"), c.get("expMax")}
	consts = append(consts, poly...)
	consts = append(consts, 1, -1, math.Float32frombits(127))
	for i, v := range consts {
		w.op("MOVW $0x%08x, R2", math.Float32bits(v))
		w.op("VDUP R2, V%d.S4", 16+i)
	}
	w.op("LSR $2, R9")
	w.op("CBZ R9, done")
	w.label("loop")
	w.op("VLD1.P 16(R1), [V0.S4]")
	w.neon("fmax v1.4s, v0.4s, v19.4s")
	w.neon("fmin v1.4s, v1.4s, v20.4s") // hc (a NaN stays a NaN)
	w.neon("fmul v2.4s, v1.4s, v16.4s")
	w.neon("frintn v2.4s, v2.4s")       // nf
	w.neon("fmls v1.4s, v2.4s, v17.4s") // r = hc - nf*ln2Hi
	w.neon("fmls v1.4s, v2.4s, v18.4s") // r -= nf*ln2Lo
	w.op("VMOV V25.B16, V3.B16")        // q = p4
	for i := 3; i >= 0; i-- {
		w.op("VMOV V%d.B16, V4.B16", 21+i)
		w.neon("fmla v4.4s, v3.4s, v1.4s") // q = p_i + q*r
		w.op("VMOV V4.B16, V3.B16")
	}
	w.neon("fmul v5.4s, v1.4s, v1.4s")   // r²
	w.neon("fmla v1.4s, v3.4s, v5.4s")   // t = q r² + r
	w.neon("fcmgt v6.4s, v19.4s, v0.4s") // x < expMin
	w.neon("bsl v6.16b, v27.16b, v1.16b")
	w.neon("fadd v6.4s, v6.4s, v26.4s") // t + 1
	w.neon("fcvtzs v7.4s, v2.4s")       // n
	w.neon("sshr v8.4s, v7.4s, #1")     // e1
	w.neon("sub v7.4s, v7.4s, v8.4s")   // e2 = n - e1
	w.neon("add v8.4s, v8.4s, v28.4s")
	w.neon("shl v8.4s, v8.4s, #23") // 2^e1
	w.neon("add v7.4s, v7.4s, v28.4s")
	w.neon("shl v7.4s, v7.4s, #23") // 2^e2
	w.neon("fmul v6.4s, v6.4s, v8.4s")
	w.neon("fmul v6.4s, v6.4s, v7.4s")
	w.neon("fcmeq v9.4s, v0.4s, v0.4s") // not NaN
	w.neon("bsl v9.16b, v6.16b, v0.16b")
	w.op("VST1.P [V9.S4], 16(R0)")
	w.op("SUBS $1, R9")
	w.op("BNE loop")
	w.label("done")
	w.op("RET")
}
