package main

import (
	"bytes"
	"fmt"
	"math"
)

// logKernel writes logNEON, scalar.go's log32 step for step on one vector
// an iteration. Constants: v16 logTiny, v17 2^23, v18 the mantissa mask,
// v19 1, v20 sqrt2f, v21 0.5, v22 -0.5, v23 ln2Lo, v24 ln2Hi, v25 0,
// v26 +Inf, v27 -Inf, v28–v29 logPoly (four coefficients each, read by
// element).
func logKernel(c *coeffs, s, g *bytes.Buffer) {
	poly := c.arrays["logPoly"]
	if len(poly) != 8 {
		panic(fmt.Sprintf("neongen: logPoly has %d coefficients, the kernel is written for 8", len(poly)))
	}
	inf := float32(math.Inf(1))
	consts := func(w writer) {
		broadcast(w, 16, c.get("logTiny"), 1<<23, math.Float32frombits(0x7fffff), 1, c.get("sqrt2f"), 0.5, -0.5,
			c.get("ln2Lo"), c.get("ln2Hi"), 0, inf, -inf)
		pack(w, 28, poly[:4]...)
		pack(w, 29, poly[4:]...)
	}
	coef := func(i int) string { return fmt.Sprintf("v%d.s[%d]", 28+i/4, i%4) }
	body := func(w writer) int {
		// A subnormal x is scaled by 2^23 (k = -23): the scale s is 2^23
		// or 1, and its exponent field is the bias 127 - k.
		w.Neon("fcmgt v1.4s, v16.4s, v0.4s") // x < logTiny
		w.Neon("bsl v1.16b, v17.16b, v19.16b")
		w.Neon("fmul v2.4s, v0.4s, v1.4s")
		w.Neon("ushr v1.4s, v1.4s, #23")
		w.Neon("ushr v3.4s, v2.4s, #23")
		w.Neon("sub v3.4s, v3.4s, v1.4s") // e
		w.Neon("and v4.16b, v2.16b, v18.16b")
		w.Neon("orr v4.16b, v4.16b, v19.16b") // m in [1, 2)
		w.Neon("fcmgt v5.4s, v4.4s, v20.4s")  // m > sqrt2f
		w.Neon("fmul v6.4s, v4.4s, v21.4s")
		w.Neon("sub v3.4s, v3.4s, v5.4s") // e++ there
		w.Neon("bsl v5.16b, v6.16b, v4.16b")
		w.Neon("fsub v5.4s, v5.4s, v19.4s") // f = m - 1
		w.Neon("scvtf v3.4s, v3.4s")        // ef
		// p = horner(logPoly, f), alternating v6 and v7.
		w.Neon("dup v6.4s, %s", coef(7))
		for i := 6; i >= 0; i-- {
			acc, prev := 6+(i+1)%2, 6+i%2
			w.Neon("dup v%d.4s, %s", acc, coef(i))
			w.Neon("fmla v%d.4s, v%d.4s, v5.4s", acc, prev)
		}
		w.Neon("fmul v8.4s, v5.4s, v5.4s") // f²
		w.Op("VMOV V22.B16, V9.B16")
		w.Neon("fmla v9.4s, v5.4s, v7.4s") // f p - 0.5
		w.Neon("fmul v9.4s, v8.4s, v9.4s") // y
		w.Neon("fmla v9.4s, v3.4s, v23.4s")
		w.Neon("fadd v9.4s, v9.4s, v5.4s")
		w.Neon("fmla v9.4s, v3.4s, v24.4s")
		// x = 0: -Inf; x < 0: NaN (all ones); a NaN or +Inf: x.
		w.Neon("fcmgt v10.4s, v25.4s, v0.4s")
		w.Neon("orr v10.16b, v10.16b, v0.16b")
		w.Neon("fcmeq v11.4s, v0.4s, v25.4s")
		w.Neon("bsl v11.16b, v27.16b, v10.16b")
		w.Neon("fcmgt v12.4s, v0.4s, v25.4s")
		w.Neon("fcmgt v13.4s, v26.4s, v0.4s")
		w.Neon("and v12.16b, v12.16b, v13.16b") // 0 < x < +Inf
		w.Neon("bsl v12.16b, v9.16b, v11.16b")
		return 12
	}
	unaryKernel(s, g, "logNEON", "ln x[i] (log32)", consts, body)
}
