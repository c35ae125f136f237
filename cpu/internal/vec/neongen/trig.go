package main

import (
	"bytes"
	"fmt"
	"math"
)

// trigKernels writes sinNEON and cosNEON, scalar.go's sincos32 step for
// step for |x| <= trigMax. Like the amd64 kernels they stop before the
// first vector holding an argument beyond that (or a NaN) and return how
// many elements they wrote; the Go wrapper (trig) finishes that vector
// with the math package's fallback and calls them again. Constants: v16
// twoOverPi and pio2A–C, v17 sinPoly, v18 cosPoly and 1/2 (all read by
// element), v19 1, v20 trigMax, v21 the int32 1, v22 the sign bit.
func trigKernels(c *coeffs, s, g *bytes.Buffer) {
	sp, cp := c.arrays["sinPoly"], c.arrays["cosPoly"]
	if len(sp) != 4 || len(cp) != 3 {
		panic(fmt.Sprintf("neongen: sinPoly and cosPoly have %d and %d coefficients, the kernels are written for 4 and 3", len(sp), len(cp)))
	}
	for _, cos := range []bool{false, true} {
		name, what := "sinNEON", "sin"
		if cos {
			name, what = "cosNEON", "cos"
		}
		w := kernel(s, g, name, "(dst, x []float32) int", 56,
			fmt.Sprintf("%s sets dst[i] = %s x[i] (sincos32) for i < len(dst)&^3, stopping\n"+
				"before the first vector holding an |x[i]| beyond trigMax or a NaN; it\n"+
				"returns the number of elements written.", name, what))
		w.Op("MOVD dst_base+0(FP), R0")
		w.Op("MOVD dst_len+8(FP), R9")
		w.Op("MOVD x_base+24(FP), R1")
		pack(w, 16, c.get("twoOverPi"), c.get("pio2A"), c.get("pio2B"), c.get("pio2C"))
		pack(w, 17, sp...)
		pack(w, 18, append(cp[:3:3], 0.5)...)
		broadcast(w, 19, 1, c.get("trigMax"), math.Float32frombits(1), math.Float32frombits(0x80000000))
		w.Op("LSR $2, R9, R10")
		w.Op("MOVD ZR, R11")
		w.Op("CBZ R10, done")
		w.Label("loop")
		w.Op("VLD1 (R1), [V0.S4]")
		w.Neon("fabs v1.4s, v0.4s")
		w.Neon("fcmge v1.4s, v20.4s, v1.4s") // |x| <= trigMax, false for a NaN
		w.Neon("uminv s1, v1.4s")
		w.Op("FMOVS F1, R12")
		w.Op("CBZW R12, done")
		w.Op("ADD $16, R1")
		w.Neon("fmul v2.4s, v0.4s, v16.s[0]")
		w.Neon("frintn v2.4s, v2.4s") // n
		w.Neon("fcvtzs v3.4s, v2.4s") // q
		w.Op("VMOV V0.B16, V4.B16")
		for i := 1; i <= 3; i++ {
			w.Neon("fmls v4.4s, v2.4s, v16.s[%d]", i) // r -= n pio2
		}
		w.Neon("fmul v5.4s, v4.4s, v4.4s") // r²
		w.Neon("fmul v6.4s, v4.4s, v5.4s") // r³
		h := hornerElems(w, 17, 0, 4, 5, 7)
		w.Op("VMOV V4.B16, V9.B16")
		w.Neon("fmla v9.4s, v6.4s, v%d.4s", h) // sin
		w.Op("VMOV V19.B16, V10.B16")
		w.Neon("fmls v10.4s, v5.4s, v18.s[3]") // 1 - r²/2
		w.Neon("fmul v11.4s, v5.4s, v5.4s")    // r⁴
		h = hornerElems(w, 18, 0, 3, 5, 12)
		w.Neon("fmla v10.4s, v11.4s, v%d.4s", h) // cos
		if cos {
			w.Neon("add v3.4s, v3.4s, v21.4s")
		}
		w.Neon("and v14.16b, v3.16b, v21.16b")
		w.Neon("cmeq v14.4s, v14.4s, v21.4s") // q odd: the cosine
		w.Neon("bsl v14.16b, v10.16b, v9.16b")
		w.Neon("shl v15.4s, v3.4s, #30")
		w.Neon("and v15.16b, v15.16b, v22.16b") // q&2: negated
		w.Neon("eor v14.16b, v14.16b, v15.16b")
		w.Op("VST1.P [V14.S4], 16(R0)")
		w.Op("ADD $4, R11")
		w.Op("SUBS $1, R10")
		w.Op("BNE loop")
		w.Label("done")
		w.Op("MOVD R11, ret+48(FP)")
		w.Op("RET")
	}
}
