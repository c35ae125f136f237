package main

import (
	"bytes"
)

// geluTanhKernel writes geluTanhNEON, scalar.go's geluTanh32 step for step
// on exp's registers (see expConsts): v29 holds geluC1Hi, geluC1Lo,
// geluC2Hi, geluC2Lo (read by element), v30 geluTanhClamp, v31 0.
func geluTanhKernel(c *coeffs, s, g *bytes.Buffer) {
	consts := func(w writer) {
		expConsts(w, c)
		pack(w, 29, c.get("geluC1Hi"), c.get("geluC1Lo"), c.get("geluC2Hi"), c.get("geluC2Lo"))
		broadcast(w, 30, c.get("geluTanhClamp"), 0)
	}
	body := func(w writer) int {
		geluTanhArg(w)
		expPartsHL(w, 14, 15)
		w.Neon("fadd v11.4s, v6.4s, v26.4s")
		ldexp(w, 12, 11) // e
		w.Op("VMOV V0.B16, V13.B16")
		w.Neon("fmla v13.4s, v6.4s, v0.4s") // t x + x
		ldexp(w, 13, 13)
		w.Neon("fcmgt v10.4s, v31.4s, v0.4s") // x < 0
		w.Neon("bsl v10.16b, v13.16b, v0.16b")
		w.Neon("fadd v12.4s, v12.4s, v26.4s")
		w.Neon("fdiv v10.4s, v10.4s, v12.4s")
		w.Neon("fcmeq v11.4s, v0.4s, v0.4s") // a NaN stays itself
		w.Neon("bsl v11.16b, v10.16b, v0.16b")
		return 11
	}
	unaryKernel(s, g, "geluTanhNEON", "x[i]/2 (1 + tanh(sqrt(2/pi) (x[i] + 0.044715 x[i]^3))) (geluTanh32)", consts, body)
}

// geluTanhArg is scalar.go's geluTanhArg for a = min(|x|, v30) (x in v0):
// a in v10, vh in v14 and vl in v15, using v1–v3 and v11–v13, with
// geluC1Hi, geluC1Lo, geluC2Hi and geluC2Lo in v29's elements.
func geluTanhArg(w writer) {
	w.Neon("fabs v10.4s, v0.4s")
	w.Neon("fmin v10.4s, v10.4s, v30.4s") // a
	w.Neon("fmul v11.4s, v10.4s, v10.4s") // ph
	w.Neon("fneg v12.4s, v11.4s")
	w.Neon("fmla v12.4s, v10.4s, v10.4s")   // pl = a a - ph
	w.Neon("fmul v13.4s, v11.4s, v29.s[2]") // ah = c2h ph
	w.Neon("fneg v14.4s, v13.4s")
	w.Neon("fmla v14.4s, v11.4s, v29.s[2]") // c2h ph - ah
	w.Neon("fmul v15.4s, v11.4s, v29.s[3]") // c2l ph
	w.Neon("fmla v15.4s, v12.4s, v29.s[2]") // + c2h pl
	w.Neon("fadd v14.4s, v14.4s, v15.4s")   // al
	// sh + sl = c1h + ah exactly (twoSum), then sl += al + c1l.
	w.Neon("dup v11.4s, v29.s[0]")
	w.Neon("fadd v12.4s, v11.4s, v13.4s") // sh
	w.Neon("fsub v15.4s, v12.4s, v11.4s") // bb
	w.Neon("fsub v1.4s, v12.4s, v15.4s")
	w.Neon("fsub v1.4s, v11.4s, v1.4s")
	w.Neon("fsub v2.4s, v13.4s, v15.4s")
	w.Neon("fadd v1.4s, v1.4s, v2.4s")
	w.Neon("dup v3.4s, v29.s[1]")
	w.Neon("fadd v3.4s, v14.4s, v3.4s")
	w.Neon("fadd v1.4s, v1.4s, v3.4s")    // sl
	w.Neon("fmul v13.4s, v10.4s, v12.4s") // p = a sh
	w.Neon("fneg v14.4s, v13.4s")         // vh
	w.Op("VMOV V13.B16, V15.B16")
	w.Neon("fmls v15.4s, v10.4s, v12.4s")
	w.Neon("fmls v15.4s, v10.4s, v1.4s") // vl
}

// geluTanhGradKernel writes geluTanhGradNEON (geluTanhGrad32):
// e (d - a v'(a)) / d^2 with e = exp(-v(a)), d = 1 + e, on geluTanhKernel's
// registers but v31, which holds geluC2x3.
func geluTanhGradKernel(c *coeffs, s, g *bytes.Buffer) {
	consts := func(w writer) {
		expConsts(w, c)
		pack(w, 29, c.get("geluC1Hi"), c.get("geluC1Lo"), c.get("geluC2Hi"), c.get("geluC2Lo"))
		broadcast(w, 30, c.get("geluTanhClamp"), c.get("geluC2x3"))
	}
	body := func(w writer) int {
		geluTanhArg(w)
		expPartsHL(w, 14, 15)
		w.Neon("fadd v11.4s, v6.4s, v26.4s")
		ldexp(w, 12, 11)
		w.Neon("fadd v12.4s, v12.4s, v26.4s") // d = 1 + e
		w.Neon("fmul v13.4s, v10.4s, v31.4s") // geluC2x3 a
		w.Neon("dup v14.4s, v29.s[0]")
		w.Neon("fmla v14.4s, v13.4s, v10.4s") // v'(a)
		w.Op("VMOV V12.B16, V15.B16")
		w.Neon("fmls v15.4s, v10.4s, v14.4s") // f = d - a v'
		w.Op("VMOV V15.B16, V13.B16")
		w.Neon("fmla v13.4s, v6.4s, v15.4s") // t f + f
		ldexp(w, 13, 13)
		w.Neon("fmul v11.4s, v12.4s, v12.4s")
		w.Neon("fdiv v13.4s, v13.4s, v11.4s") // y
		mirrorGrad(w, 13)
		return 3
	}
	unaryKernel(s, g, "geluTanhGradNEON", "the tanh GELU's derivative at x[i] (geluTanhGrad32)", consts, body)
}
