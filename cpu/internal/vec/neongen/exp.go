package main

import (
	"bytes"
	"fmt"
	"math"
)

// The exp family, scalar.go step for step on one vector of 4 floats an
// iteration. Constants live in v16–v28 for every kernel (see expConsts)
// and v29–v31 per kernel; a kernel's input is in v0.

// expConsts loads v16 log2e, v17 ln2Hi, v18 ln2Lo, v19 expMin, v20 expMax,
// v21–v25 exp's polynomial, v26 1, v27 -1 and v28 the int32 127, then
// extra values into v29 up.
func expConsts(w writer, c *coeffs, extra ...float32) {
	poly := c.arrays["expPoly"]
	if len(poly) != 5 {
		panic(fmt.Sprintf("neongen: expPoly has %d coefficients, the kernels are written for 5", len(poly)))
	}
	consts := []float32{c.get("log2e"), c.get("ln2Hi"), c.get("ln2Lo"), c.get("expMin"), c.get("expMax")}
	consts = append(consts, poly...)
	consts = append(consts, 1, -1, math.Float32frombits(127))
	consts = append(consts, extra...)
	if len(consts) > 16 {
		panic("neongen: too many constants")
	}
	for i, v := range consts {
		w.Op("MOVW $0x%08x, R2", math.Float32bits(v))
		w.Op("VDUP R2, V%d.S4", 16+i)
	}
}

// expParts is scalar.go's expParts(h, 0) for h in register h (kept): t in
// v6 and n (int32) in v7, using v1–v5. A NaN lane gives t NaN and n 0.
func expParts(w writer, h int) { expPartsHL(w, h, -1) }

// expPartsHL is expParts(h, l) with l in register l (kept; -1: l = 0, no
// addition).
func expPartsHL(w writer, h, l int) {
	w.Neon("fmax v1.4s, v%d.4s, v19.4s", h)
	w.Neon("fmin v1.4s, v1.4s, v20.4s") // hc (a NaN stays a NaN)
	w.Neon("fmul v2.4s, v1.4s, v16.4s")
	w.Neon("frintn v2.4s, v2.4s")       // nf
	w.Neon("fmls v1.4s, v2.4s, v17.4s") // r = hc - nf*ln2Hi
	w.Neon("fmls v1.4s, v2.4s, v18.4s") // r -= nf*ln2Lo
	if l >= 0 {
		w.Neon("fadd v1.4s, v1.4s, v%d.4s", l) // r += l
	}
	w.Op("VMOV V25.B16, V3.B16") // q = p4
	for i := 3; i >= 0; i-- {
		w.Op("VMOV V%d.B16, V4.B16", 21+i)
		w.Neon("fmla v4.4s, v3.4s, v1.4s") // q = p_i + q*r
		w.Op("VMOV V4.B16, V3.B16")
	}
	w.Neon("fmul v5.4s, v1.4s, v1.4s")       // r²
	w.Neon("fmla v1.4s, v3.4s, v5.4s")       // t = q r² + r
	w.Neon("fcmgt v6.4s, v19.4s, v%d.4s", h) // h < expMin
	w.Neon("bsl v6.16b, v27.16b, v1.16b")    // t = -1 there
	w.Neon("fcvtzs v7.4s, v2.4s")            // n
}

// ldexp is scalar.go's ldexp: out = p·2^(n>>1)·2^(n-(n>>1)) for n in v7
// (kept), rounding each product, with the powers built in the exponent
// field; it uses v8 and v9.
func ldexp(w writer, out, p int) {
	w.Neon("sshr v8.4s, v7.4s, #1")   // e1
	w.Neon("sub v9.4s, v7.4s, v8.4s") // e2 = n - e1
	w.Neon("add v8.4s, v8.4s, v28.4s")
	w.Neon("shl v8.4s, v8.4s, #23") // 2^e1
	w.Neon("add v9.4s, v9.4s, v28.4s")
	w.Neon("shl v9.4s, v9.4s, #23") // 2^e2
	w.Neon("fmul v%d.4s, v%d.4s, v8.4s", out, p)
	w.Neon("fmul v%d.4s, v%d.4s, v9.4s", out, out)
}

// expFamily lists the kernels: each body reads x in v0 and leaves the
// result in the register it returns.
var expFamily = []struct {
	name, doc string
	extra     []float32
	body      func(w writer) int
}{
	{"expNEON", "exp(x[i]) (exp32)", nil, func(w writer) int {
		expParts(w, 0)
		w.Neon("fadd v6.4s, v6.4s, v26.4s") // t + 1
		ldexp(w, 6, 6)
		w.Neon("fcmeq v10.4s, v0.4s, v0.4s") // not NaN
		w.Neon("bsl v10.16b, v6.16b, v0.16b")
		return 10
	}},
	// sigmoid32: e = exp(-|x|) = ldexp(t+1, n); (x >= 0 ? 1 : e)/(1+e).
	{"sigmoidNEON", "1/(1+exp(-x[i])) (sigmoid32)", []float32{0}, func(w writer) int {
		w.Neon("fabs v10.4s, v0.4s")
		w.Neon("fneg v10.4s, v10.4s")
		expParts(w, 10)
		w.Neon("fadd v11.4s, v6.4s, v26.4s")
		ldexp(w, 12, 11)                      // e
		w.Neon("fcmge v13.4s, v0.4s, v29.4s") // x >= 0
		w.Neon("bsl v13.16b, v26.16b, v12.16b")
		w.Neon("fadd v14.4s, v12.4s, v26.4s")
		w.Neon("fdiv v15.4s, v13.4s, v14.4s")
		return 15
	}},
	// silu32: as sigmoid with f = x: num = x, or ldexp(t·x + x, n) below 0.
	{"siluNEON", "x[i]/(1+exp(-x[i])) (silu32)", []float32{0}, func(w writer) int {
		w.Neon("fabs v10.4s, v0.4s")
		w.Neon("fneg v10.4s, v10.4s")
		expParts(w, 10)
		w.Neon("fadd v11.4s, v6.4s, v26.4s")
		ldexp(w, 12, 11) // e
		w.Op("VMOV V0.B16, V11.B16")
		w.Neon("fmla v11.4s, v6.4s, v0.4s") // t·x + x
		ldexp(w, 13, 11)
		w.Neon("fcmge v14.4s, v0.4s, v29.4s") // x >= 0
		w.Neon("bsl v14.16b, v0.16b, v13.16b")
		w.Neon("fadd v15.4s, v12.4s, v26.4s")
		w.Neon("fdiv v15.4s, v14.4s, v15.4s")
		return 15
	}},
	// tanh32: E = expm1(2a), a = min(|x|, tanhClamp), from exp's parts as
	// 2^n t + (2^n - 1); copysign(E/(E+2), x).
	{"tanhNEON", "tanh(x[i]) (tanh32)", nil, func(w writer) int {
		w.Neon("fabs v10.4s, v0.4s")
		w.Neon("fmin v10.4s, v10.4s, v29.4s")
		w.Neon("fadd v10.4s, v10.4s, v10.4s")
		expParts(w, 10)
		w.Neon("add v8.4s, v7.4s, v28.4s")
		w.Neon("shl v8.4s, v8.4s, #23")      // p = 2^n
		w.Neon("fsub v9.4s, v8.4s, v26.4s")  // p - 1
		w.Neon("fmla v9.4s, v8.4s, v6.4s")   // E
		w.Neon("fadd v11.4s, v9.4s, v30.4s") // E + 2
		w.Neon("fdiv v12.4s, v9.4s, v11.4s")
		w.Op("VMOV V31.B16, V13.B16")
		w.Neon("bsl v13.16b, v0.16b, v12.16b") // the sign of x
		return 13
	}},
}

// expKernels writes the exp family.
func expKernels(c *coeffs, s, g *bytes.Buffer) {
	extra := map[string][]float32{"tanhNEON": {c.get("tanhClamp"), 2, math.Float32frombits(0x80000000)}}
	for _, k := range expFamily {
		ex := k.extra
		if e, ok := extra[k.name]; ok {
			ex = e
		}
		unaryKernel(s, g, k.name, k.doc, func(w writer) { expConsts(w, c, ex...) }, k.body)
	}
}
