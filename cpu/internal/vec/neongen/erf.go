package main

import (
	"bytes"
	"fmt"
	"math"
)

// The erf family: scalar.go's erf32 (and geluErf32) step for step on exp's
// registers (see expConsts). v29–v31 hold the kernel's other constants,
// read by element; the erfc polynomial Q is reloaded each iteration from a
// table into v7–v9 (four coefficients each, by element), which expParts
// then overwrites.

// table writes a read-only table of float32 values named name<> and returns
// its symbol.
func table(s *bytes.Buffer, name string, vals []float32) string {
	sym := name + "<>"
	fmt.Fprintf(s, "\n")
	for i, v := range vals {
		fmt.Fprintf(s, "DATA %s+%d(SB)/4, $0x%08x\n", sym, 4*i, math.Float32bits(v))
	}
	fmt.Fprintf(s, "GLOBL %s(SB), RODATA|NOPTR, $%d\n", sym, 4*len(vals))
	return sym
}

// elemOf names value i of values packed four to a register from v first up.
func elemOf(first, i int) string { return fmt.Sprintf("v%d.s[%d]", first+i/4, i%4) }

// hornerElems evaluates c[lo] + c[lo+1] u + … + c[hi-1] u^(hi-1-lo)
// (scalar.go's horner on c[lo:hi], the same fused steps) for c packed from
// register first, u in register u, alternating between registers r0 and
// r0+1; it returns the register of the result.
func hornerElems(w writer, first, lo, hi, u, r0 int) int {
	w.Neon("dup v%d.4s, %s", r0, elemOf(first, hi-1))
	prev := r0
	for i := hi - 2; i >= lo; i-- {
		acc := r0 + (hi-1-i)%2
		w.Neon("dup v%d.4s, %s", acc, elemOf(first, i))
		w.Neon("fmla v%d.4s, v%d.4s, v%d.4s", acc, prev, u)
		prev = acc
	}
	return prev
}

// erfcTail is scalar.go's erfcTail for Q's n coefficients, loaded from the
// table at R3 into v7 up, with k, 1/2 and 2 Q[3] the elements kE, halfE and
// twoQ3E, a, t2h and t2l in registers (t2h and t2l are negated in place)
// and f in register f (-1: f = 1, the product f zq is zq). It leaves the
// result in v1, using v1–v9 and v13.
func erfcTail(w writer, n int, kE, halfE, twoQ3E string, a, t2h, t2l, f int) {
	erfcZQ(w, n, kE, halfE, twoQ3E, a)
	if f >= 0 {
		w.Neon("fmul v13.4s, v%d.4s, v13.4s", f)
	}
	// expMul(-t2h, -t2l, f zq) = ldexp(t f zq + f zq, n).
	w.Neon("fneg v%d.4s, v%d.4s", t2h, t2h)
	w.Neon("fneg v%d.4s, v%d.4s", t2l, t2l)
	expPartsHL(w, t2h, t2l)
	w.Op("VMOV V13.B16, V1.B16")
	w.Neon("fmla v1.4s, v6.4s, v13.4s")
	ldexp(w, 1, 1)
}

// erfcZQ is scalar.go's erfcZQ, erfcTail's z Q(z-1/2) (arguments as
// there): it leaves zq in v13, using v1–v9.
func erfcZQ(w writer, n int, kE, halfE, twoQ3E string, a int) {
	w.Op("VLD1 (R3), [V7.S4, V8.S4, V9.S4]")
	// z = 1/(1+k a) as zh + zl: d + dl = 1 + k a, a Newton step on 1/d.
	w.Op("VMOV V26.B16, V1.B16")
	w.Neon("fmla v1.4s, v%d.4s, %s", a, kE) // d
	w.Neon("fsub v2.4s, v26.4s, v1.4s")
	w.Neon("fmla v2.4s, v%d.4s, %s", a, kE) // dl
	w.Neon("fdiv v3.4s, v26.4s, v1.4s")     // z0
	w.Op("VMOV V26.B16, V4.B16")
	w.Neon("fmls v4.4s, v1.4s, v3.4s")
	w.Neon("fmls v4.4s, v2.4s, v3.4s") // r
	w.Op("VMOV V3.B16, V5.B16")
	w.Neon("fmla v5.4s, v3.4s, v4.4s") // zh
	w.Neon("fsub v6.4s, v3.4s, v5.4s")
	w.Neon("fmla v6.4s, v3.4s, v4.4s") // zl
	w.Neon("dup v1.4s, %s", halfE)
	w.Neon("fsub v1.4s, v5.4s, v1.4s")           // u = zh - 1/2
	wr := hornerElems(w, 7, 1, n, 1, 2)          // w = Q(u) - Q[0]
	w.Neon("dup v%d.4s, %s", 5-wr, elemOf(7, 0)) // the other of v2, v3
	w.Neon("fadd v%d.4s, v%d.4s, v%d.4s", 5-wr, wr, 5-wr)
	p := 5 - wr
	w.Neon("dup v4.4s, %s", elemOf(7, 2))
	w.Neon("fmla v4.4s, v1.4s, %s", twoQ3E) // dp
	w.Op("VMOV V%d.B16, V13.B16", p)
	w.Neon("fmla v13.4s, v5.4s, v4.4s")
	w.Neon("fmul v13.4s, v6.4s, v13.4s")
	w.Neon("fmla v13.4s, v5.4s, v%d.4s", wr)
	w.Neon("fmla v13.4s, v5.4s, %s", elemOf(7, 0)) // zq
}

// erfKernel writes erfNEON (erf32): the small-argument polynomial and the
// erfc form are both computed and selected per lane. v29–v30 hold erfPoly
// and erfSmall, v31 erfClamp, 1/2, 2 erfcPoly[3] and the sign bit.
func erfKernel(c *coeffs, s, g *bytes.Buffer) {
	ep, q := c.arrays["erfPoly"], c.arrays["erfcPoly"]
	if len(ep) != 7 || len(q) != 11 {
		panic(fmt.Sprintf("neongen: erfPoly and erfcPoly have %d and %d coefficients, the kernel is written for 7 and 11", len(ep), len(q)))
	}
	tab := table(s, "erfcPoly", q)
	consts := func(w writer) {
		expConsts(w, c)
		pack(w, 29, ep[:4]...)
		pack(w, 30, append(ep[4:7:7], c.get("erfSmall"))...)
		pack(w, 31, c.get("erfClamp"), 0.5, 2*q[3], math.Float32frombits(0x80000000))
		w.Op("MOVD $%s(SB), R3", tab)
	}
	body := func(w writer) int {
		w.Neon("fabs v10.4s, v0.4s")
		w.Neon("dup v1.4s, v30.s[3]")
		w.Neon("fcmgt v14.4s, v1.4s, v10.4s") // |x| < erfSmall
		w.Neon("fmul v11.4s, v0.4s, v0.4s")
		sr := hornerElems(w, 29, 1, 7, 11, 12)
		w.Neon("fmul v15.4s, v0.4s, v%d.4s", sr)
		w.Neon("fmla v15.4s, v0.4s, v29.s[0]") // x ep0 + x s
		w.Neon("dup v1.4s, v31.s[0]")
		w.Neon("fmin v10.4s, v10.4s, v1.4s") // ac
		w.Neon("fmul v11.4s, v10.4s, v10.4s")
		w.Neon("fneg v12.4s, v11.4s")
		w.Neon("fmla v12.4s, v10.4s, v10.4s") // ul
		erfcTail(w, len(q), "v31.s[1]", "v31.s[1]", "v31.s[2]", 10, 11, 12, -1)
		w.Neon("fsub v1.4s, v26.4s, v1.4s")
		w.Neon("dup v2.4s, v31.s[3]")
		w.Neon("bsl v2.16b, v0.16b, v1.16b") // copysign(1 - erfc, x)
		w.Neon("bsl v14.16b, v15.16b, v2.16b")
		w.Neon("fcmeq v3.4s, v0.4s, v0.4s") // a NaN stays itself
		w.Neon("bsl v3.16b, v14.16b, v0.16b")
		return 3
	}
	unaryKernel(s, g, "erfNEON", "erf x[i] (erf32)", consts, body)
}

// geluErfKernel writes geluErfNEON (geluErf32): x Phi(x) from the geluPhi
// table (geluPhi32; each lane's interval row gathered by two LD4s from a
// copy of the table with each interval's eight coefficients together) and
// the erfc form, both computed and selected per lane. v29 holds 15.5, 31
// (the last interval), -Inf and 0, v30 geluPhiMax, -1/2, 4 and 16, v31
// geluZk, 1/2, 2 geluErfcPoly[3] and geluClamp.
func geluErfKernel(c *coeffs, s, g *bytes.Buffer) {
	const intervals, degree = 32, 8 // geluPhi: eight coefficients for each of 32 intervals
	phi, q := c.arrays["geluPhi"], c.arrays["geluErfcPoly"]
	if len(phi) != intervals*degree || len(q) != 12 {
		panic(fmt.Sprintf("neongen: geluPhi and geluErfcPoly have %d and %d coefficients, the kernel is written for %d and 12",
			len(phi), len(q), intervals*degree))
	}
	rows := make([]float32, 0, len(phi))
	for j := 0; j < intervals; j++ {
		for k := 0; k < degree; k++ {
			rows = append(rows, phi[k*intervals+j])
		}
	}
	qTab, phiTab := table(s, "geluErfcPoly", q), table(s, "geluPhiRows", rows)
	consts := func(w writer) {
		expConsts(w, c)
		pack(w, 29, 15.5, intervals-1, float32(math.Inf(-1)), 0)
		pack(w, 30, c.get("geluPhiMax"), -0.5, 4, 16)
		pack(w, 31, c.get("geluZk"), 0.5, 2*q[3], c.get("geluClamp"))
		w.Op("MOVD $%s(SB), R3", qTab)
		w.Op("MOVD $%s(SB), R4", phiTab)
	}
	body := func(w writer) int {
		// geluPhi32: j = int32(4x + 16), clamped to the table for the
		// lanes outside it (their result is not used), and
		// v = 4x - (j - 15.5).
		w.Neon("dup v1.4s, v30.s[2]")
		w.Neon("dup v2.4s, v30.s[3]")
		w.Neon("fmla v2.4s, v0.4s, v1.4s")
		w.Neon("dup v1.4s, v29.s[3]")
		w.Neon("fmax v2.4s, v2.4s, v1.4s")
		w.Neon("dup v1.4s, v29.s[1]")
		w.Neon("fmin v2.4s, v2.4s, v1.4s")
		w.Neon("fcvtzs v2.4s, v2.4s") // j
		w.Neon("scvtf v3.4s, v2.4s")
		w.Neon("dup v1.4s, v29.s[0]")
		w.Neon("fsub v3.4s, v3.4s, v1.4s")
		w.Neon("fneg v3.4s, v3.4s")
		w.Neon("fmla v3.4s, v0.4s, v30.s[2]") // v
		for i := 0; i < 4; i++ {
			w.Op("VMOV V2.S[%d], R5", i)
			w.Op("ADD R5<<5, R4, R5")
			w.Neon("ld4 {v8.s, v9.s, v10.s, v11.s}[%d], [x5]", i)
			w.Op("ADD $16, R5")
			w.Neon("ld4 {v12.s, v13.s, v14.s, v15.s}[%d], [x5]", i)
		}
		for k := degree - 2; k >= 1; k-- { // c(k) in v(8+k)
			w.Neon("fmla v%d.4s, v%d.4s, v3.4s", 8+k, 9+k)
		}
		w.Neon("fmul v14.4s, v0.4s, v9.4s")
		w.Neon("fmla v14.4s, v0.4s, v8.4s") // x c(0) + x w
		// The erfc form: max(x, 0) + erfcTail(geluErfcPoly, geluZk, ac,
		// u/2, ul/2, -ac/2).
		w.Neon("fabs v10.4s, v0.4s")
		w.Neon("dup v1.4s, v31.s[3]")
		w.Neon("fmin v10.4s, v10.4s, v1.4s") // ac
		w.Neon("fmul v11.4s, v10.4s, v10.4s")
		w.Neon("fneg v12.4s, v11.4s")
		w.Neon("fmla v12.4s, v10.4s, v10.4s") // ul
		w.Neon("fmul v11.4s, v11.4s, v31.s[1]")
		w.Neon("fmul v12.4s, v12.4s, v31.s[1]")
		w.Neon("fmul v15.4s, v10.4s, v30.s[1]") // f
		erfcTail(w, len(q), "v31.s[0]", "v31.s[1]", "v31.s[2]", 10, 11, 12, 15)
		w.Neon("dup v2.4s, v29.s[3]")
		w.Neon("fmax v2.4s, v0.4s, v2.4s")
		w.Neon("fadd v2.4s, v2.4s, v1.4s")
		w.Neon("dup v3.4s, v29.s[2]")
		w.Neon("fcmeq v3.4s, v0.4s, v3.4s")
		w.Neon("orr v2.16b, v2.16b, v3.16b") // -Inf: NaN
		w.Neon("fabs v4.4s, v0.4s")
		w.Neon("dup v5.4s, v30.s[0]")
		w.Neon("fcmgt v5.4s, v5.4s, v4.4s") // |x| < geluPhiMax: the table
		w.Neon("bsl v5.16b, v14.16b, v2.16b")
		w.Neon("fcmeq v6.4s, v0.4s, v0.4s") // a NaN stays itself
		w.Neon("bsl v6.16b, v5.16b, v0.16b")
		return 6
	}
	unaryKernel(s, g, "geluErfNEON", "x[i]/2 (1 + erf(x[i]/sqrt 2)) (geluErf32)", consts, body)
}

// mirrorGrad leaves in v3 a GELU derivative from y = g(-|x|) in register
// y: y where x < 0, 1 - y elsewhere (scalar.go's geluErfGrad32 and
// geluTanhGrad32); it uses v2 and v4.
func mirrorGrad(w writer, y int) {
	w.Neon("eor v2.16b, v2.16b, v2.16b")
	w.Neon("fcmgt v3.4s, v2.4s, v0.4s") // x < 0
	w.Neon("fsub v4.4s, v26.4s, v%d.4s", y)
	w.Neon("bsl v3.16b, v%d.16b, v4.16b", y)
}

// geluErfGradKernel writes geluErfGradNEON (geluErfGrad32): both forms,
// selected per lane. The table form (geluPhiGrad32) gathers each lane's
// geluPhi row like geluErfNEON (the tables geluPhiRows<> and geluErfcPoly<>
// are written by geluErfKernel); the erfc form is exp(-a^2/2)
// (zq/2 - a/sqrt(2 pi)). v29 holds 15.5, 31, 4 and 16, v30 geluZk, 1/2,
// 2 geluErfcPoly[3] and geluClamp, v31 invSqrt2PiHi, invSqrt2PiLo and
// geluPhiMax.
func geluErfGradKernel(c *coeffs, s, g *bytes.Buffer) {
	const intervals = 32
	q := c.arrays["geluErfcPoly"]
	consts := func(w writer) {
		expConsts(w, c)
		pack(w, 29, 15.5, intervals-1, 4, 16)
		pack(w, 30, c.get("geluZk"), 0.5, 2*q[3], c.get("geluClamp"))
		pack(w, 31, c.get("invSqrt2PiHi"), c.get("invSqrt2PiLo"), c.get("geluPhiMax"))
		w.Op("MOVD $geluErfcPoly<>(SB), R3")
		w.Op("MOVD $geluPhiRows<>(SB), R4")
	}
	body := func(w writer) int {
		// geluPhiGrad32: j and v as in geluErfNEON, c(0) in v8 and
		// w in v9 after Horner's steps.
		w.Neon("dup v1.4s, v29.s[2]")
		w.Neon("dup v2.4s, v29.s[3]")
		w.Neon("fmla v2.4s, v0.4s, v1.4s")
		w.Neon("eor v1.16b, v1.16b, v1.16b")
		w.Neon("fmax v2.4s, v2.4s, v1.4s")
		w.Neon("dup v1.4s, v29.s[1]")
		w.Neon("fmin v2.4s, v2.4s, v1.4s")
		w.Neon("fcvtzs v2.4s, v2.4s") // j
		w.Neon("scvtf v3.4s, v2.4s")
		w.Neon("dup v1.4s, v29.s[0]")
		w.Neon("fsub v3.4s, v3.4s, v1.4s")
		w.Neon("fneg v3.4s, v3.4s")
		w.Neon("fmla v3.4s, v0.4s, v29.s[2]") // v
		for i := 0; i < 4; i++ {
			w.Op("VMOV V2.S[%d], R5", i)
			w.Op("ADD R5<<5, R4, R5")
			w.Neon("ld4 {v8.s, v9.s, v10.s, v11.s}[%d], [x5]", i)
			w.Op("ADD $16, R5")
			w.Neon("ld4 {v12.s, v13.s, v14.s, v15.s}[%d], [x5]", i)
		}
		for k := 6; k >= 1; k-- {
			w.Neon("fmla v%d.4s, v%d.4s, v3.4s", 8+k, 9+k)
		}
		w.Op("VMOV V8.B16, V12.B16")           // c(0)
		w.Op("VMOV V9.B16, V13.B16")           // w
		w.Neon("fmul v14.4s, v0.4s, v31.s[0]") // f
		w.Neon("fneg v15.4s, v14.4s")
		w.Neon("fmla v15.4s, v0.4s, v31.s[0]")
		w.Neon("fmla v15.4s, v0.4s, v31.s[1]") // fl
		w.Neon("fmul v10.4s, v0.4s, v0.4s")    // u
		w.Neon("fneg v11.4s, v10.4s")
		w.Neon("fmla v11.4s, v0.4s, v0.4s") // ul
		w.Neon("fmul v10.4s, v10.4s, v30.s[1]")
		w.Neon("fneg v10.4s, v10.4s")
		w.Neon("fmul v11.4s, v11.4s, v30.s[1]")
		w.Neon("fneg v11.4s, v11.4s")
		expPartsHL(w, 10, 11)
		w.Op("VMOV V14.B16, V1.B16")
		w.Neon("fmla v1.4s, v6.4s, v14.4s")
		w.Neon("fadd v1.4s, v1.4s, v15.4s")
		ldexp(w, 1, 1)                       // x phi
		w.Neon("fadd v1.4s, v13.4s, v1.4s")  // w + x phi
		w.Neon("fadd v15.4s, v12.4s, v1.4s") // the table form
		// The erfc form.
		w.Neon("fabs v10.4s, v0.4s")
		w.Neon("dup v1.4s, v30.s[3]")
		w.Neon("fmin v10.4s, v10.4s, v1.4s")  // ac
		w.Neon("fmul v11.4s, v10.4s, v10.4s") // u
		w.Neon("fneg v12.4s, v11.4s")
		w.Neon("fmla v12.4s, v10.4s, v10.4s") // ul
		erfcZQ(w, len(q), "v30.s[0]", "v30.s[1]", "v30.s[2]", 10)
		w.Neon("fmul v14.4s, v13.4s, v30.s[1]") // zq/2
		w.Neon("fmls v14.4s, v10.4s, v31.s[1]")
		w.Neon("fmls v14.4s, v10.4s, v31.s[0]") // b
		w.Neon("fmul v11.4s, v11.4s, v30.s[1]")
		w.Neon("fneg v11.4s, v11.4s") // -u/2
		w.Neon("fmul v12.4s, v12.4s, v30.s[1]")
		w.Neon("fneg v12.4s, v12.4s") // -ul/2
		expPartsHL(w, 11, 12)
		w.Op("VMOV V14.B16, V1.B16")
		w.Neon("fmla v1.4s, v6.4s, v14.4s")
		ldexp(w, 1, 1) // y = b exp(-a^2/2)
		mirrorGrad(w, 1)
		w.Neon("fabs v4.4s, v0.4s")
		w.Neon("dup v5.4s, v31.s[2]")
		w.Neon("fcmgt v5.4s, v5.4s, v4.4s") // |x| < geluPhiMax: the table
		w.Neon("bsl v5.16b, v15.16b, v3.16b")
		return 5
	}
	unaryKernel(s, g, "geluErfGradNEON", "Phi(x[i]) + x[i] phi(x[i]) (geluErfGrad32)", consts, body)
}
