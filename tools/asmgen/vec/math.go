package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The transcendental kernels, vector for vector the algorithms of
// cpu/internal/vec/scalar.go (see there for the reasoning and error notes).

// fnma returns c - a*b.
func (s *isa) fnma(a reg.Register, b, c Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VMOVUPS(b, v) })
	s.emit(func() { VFNMADD213PS(c, a, v) })
	return v
}

// fms returns a*b - c.
func (s *isa) fms(a reg.Register, b, c Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VMOVUPS(b, v) })
	s.emit(func() { VFMSUB213PS(c, a, v) })
	return v
}

// zero returns a register of zeros. It is loaded rather than made with the
// VXORPS idiom, which avo's liveness analysis reads as a use of the
// register before its definition (keeping it live across the function).
func (s *isa) zero() reg.VecVirtual { return s.load(s.cu(0)) }

// relu returns x where x > 0 or x is NaN, else +0, given a register of
// zeros (one zero register serves a whole handler of the fused machine).
// The unselected lanes are cleared rather than blended with zero: the same
// bits, and no merge-masked destination, which avo's allocator would keep
// live across the whole kernel.
func (s *isa) relu(x, zero reg.Register) reg.VecVirtual {
	m := s.cmp(cmpNLE, x, zero)
	v := s.vec()
	if s.avx512 {
		s.emit(func() { VMOVUPS_Z(x, m.r, v) })
	} else {
		s.emit(func() { VANDPS(x, m.r, v) })
	}
	return v
}

// clamp returns x limited to [lo, hi]; NaN stays NaN.
func (s *isa) clamp(x reg.Register, lo, hi float32) reg.VecVirtual {
	t := s.maxps(s.load(s.c(lo)), x) // lo > x ? lo : x (x when NaN)
	return s.minps(s.load(s.c(hi)), t)
}

// testBit returns the lanes of the int32 vector q with bit set.
func (s *isa) testBit(q reg.Register, bit uint32) mask {
	if s.avx512 {
		k := K()
		s.emit(func() { VPTESTMD(s.cu(bit), q, k) })
		return mask{k}
	}
	v := s.vec()
	s.emit(func() { VPCMPEQD(s.cu(bit), s.and(q, s.cu(bit)), v) })
	return mask{v}
}

var (
	inf    = float32(math.Inf(1))
	negInf = float32(math.Inf(-1))
	nan    = math.Float32frombits(0x7fc00000)
)

// expRange says what the caller knows about exp's argument, so that the
// clamps and the underflow fix that cannot change the result are left out.
type expRange struct {
	nonPos, nonNeg bool // h <= 0 or at least h <= expMax (no overflow clamp), h >= 0 (no underflow clamp)
	smallF         bool // |f| < 1: f*exp(h) below the clamp rounds to 0 anyway
}

// expHL returns exp(h + l); l may be nil.
func (g *gen) expHL(h, l reg.Register, rg expRange) reg.VecVirtual { return g.expMul(h, l, nil, rg) }

// expMul returns f*exp(h + l) with the product rounded once: with
// exp(r) = 1 + t it is ldexp(f + t*f, n). l and f may be nil (0 and 1).
func (g *gen) expMul(h, l, f reg.Register, rg expRange) reg.VecVirtual {
	t, n := g.expParts(h, l, rg)
	return g.s.ldexp(g.scaleT(t, f), n)
}

// scaleT returns f*(1+t) rounded once (1+t when f is nil).
func (g *gen) scaleT(t, f reg.Register) reg.VecVirtual {
	if f == nil {
		return g.s.add(t, g.s.c(1))
	}
	return g.s.fma(t, f, f)
}

// expParts returns t and n (as floats) with exp(h+l) = (1+t) 2^n (t = -1
// where exp underflows, unless rg.smallF).
func (g *gen) expParts(h, l reg.Register, rg expRange) (t, n reg.VecVirtual) {
	s, k := g.s, g.k
	hc := h
	if !rg.nonNeg {
		hc = s.maxps(s.load(s.c(k.k("expMin"))), hc) // expMin > h ? expMin : h (h when NaN)
	}
	if !rg.nonPos {
		hc = s.minps(s.load(s.c(k.k("expMax"))), hc)
	}
	n = s.round(s.mul(hc, s.c(k.k("log2e"))))
	r := s.fnma(n, s.c(k.k("ln2Hi")), hc)
	r = s.fnma(n, s.c(k.k("ln2Lo")), r)
	if l != nil {
		r = s.add(r, l)
	}
	q := s.horner(k.poly("expPoly"), r)
	t = s.fma(q, s.mul(r, r), r)
	if rg.nonNeg || rg.smallF {
		return t, n
	}
	// Below the clamp exp is 0 even when scaled by a large f.
	return s.sel(s.cmp(cmpLT, h, s.c(k.k("expMin"))), s.c(-1), t), n
}

// log returns ln x.
func (g *gen) log(x reg.Register) reg.VecVirtual {
	s, k := g.s, g.k
	tiny := s.cmp(cmpLT, x, s.c(k.k("logTiny")))
	xs := s.sel(tiny, s.mul(x, s.c(1<<23)), x)
	ef := s.cvtFloat(s.subi(s.shr(xs, 23), s.cu(127)))
	ef = s.add(ef, s.sel(tiny, s.c(-23), s.zero()))
	m := s.or(s.and(xs, s.cu(0x7fffff)), s.cu(0x3f800000))
	big := s.cmp(cmpGT, m, s.c(k.k("sqrt2f")))
	m = s.sel(big, s.mul(m, s.c(0.5)), m)
	ef = s.add(ef, s.sel(big, s.c(1), s.zero()))
	f := s.sub(m, s.c(1))
	p := s.horner(k.poly("logPoly"), f)
	y := s.mul(s.mul(f, f), s.fma(f, p, s.c(-0.5)))
	y = s.fma(ef, s.c(k.k("ln2Lo")), y)
	y = s.add(y, f)
	y = s.fma(ef, s.c(k.k("ln2Hi")), y)
	y = s.sel(s.cmp(cmpEQ, x, s.zero()), s.c(negInf), y)
	y = s.sel(s.cmp(cmpLT, x, s.zero()), s.c(nan), y)
	return s.sel(s.cmp(cmpEQU, x, s.c(inf)), x, y)
}

// expm1 returns exp(h) - 1 for 0 <= h <= 2*tanhClamp (see expm1Parts in
// scalar.go).
func (g *gen) expm1(h reg.Register) reg.VecVirtual {
	s := g.s
	t, n := g.expParts(h, nil, expRange{nonNeg: true, nonPos: true})
	p := s.pow2(n)
	return s.fma(p, t, s.sub(p, s.c(1)))
}

// tanh returns tanh x as E/(E+2), E = expm1(2|x|).
func (g *gen) tanh(x reg.Register) reg.VecVirtual {
	s, k := g.s, g.k
	a := s.minps(s.load(s.c(k.k("tanhClamp"))), s.abs(x))
	e := g.expm1(s.add(a, a))
	return s.orSign(s.div(e, s.add(e, s.c(2))), x)
}

// sigmoidParts returns num and e with f*sigmoid(x) = num/(1+e): e =
// exp(-|x|), num = f for x >= 0 and f*e (rounded once) otherwise; f may be
// nil (1).
func (g *gen) sigmoidParts(x, f reg.Register) (num, e reg.VecVirtual) {
	s := g.s
	// exp(-|x|); with f nil the underflow fix is not needed: below the
	// clamp exp rounds to 0 anyway.
	t, n := g.expParts(s.or(x, s.cu(0x80000000)), nil, expRange{nonPos: true, smallF: f == nil})
	e = s.ldexp(g.scaleT(t, nil), n)
	if f == nil {
		return s.sel(s.cmp(cmpGE, x, s.zero()), s.c(1), e), e
	}
	neg := s.ldexp(g.scaleT(t, f), n)
	return s.sel(s.cmp(cmpGE, x, s.zero()), f, neg), e
}

func (g *gen) sigmoid(x reg.Register) reg.VecVirtual {
	num, e := g.sigmoidParts(x, nil)
	return g.s.div(num, g.s.add(e, g.s.c(1)))
}

func (g *gen) silu(x reg.Register) reg.VecVirtual {
	num, e := g.sigmoidParts(x, x)
	return g.s.div(num, g.s.add(e, g.s.c(1)))
}

// erfcTail returns f exp(nh+nl) z Q(z-1/2) with z = 1/(1+k a), where
// nh+nl = -t^2 exactly and |f| < 1; f may be nil (1).
func (g *gen) erfcTail(q []float32, kz float32, a, nh, nl, f reg.Register) reg.VecVirtual {
	zq := g.erfcZQ(q, kz, a)
	if f != nil {
		zq = g.s.mul(f, zq)
	}
	return g.expMul(nh, nl, zq, expRange{nonPos: true, smallF: true})
}

// erfcZQ returns erfcTail's z Q(z-1/2), z = 1/(1+kz a).
func (g *gen) erfcZQ(q []float32, kz float32, a reg.Register) reg.VecVirtual {
	s := g.s
	one := s.load(s.c(1))
	d := s.fma(a, s.c(kz), s.c(1))
	dl := s.fma(a, s.c(kz), s.sub(one, d))
	z0 := s.div(one, d)
	r := s.fnma(dl, z0, s.fnma(d, z0, s.c(1)))
	zh := s.fma(z0, r, z0)
	zl := s.fma(z0, r, s.sub(z0, zh))
	u := s.sub(zh, s.c(0.5))
	w := s.fma(s.horner(q[2:], u), u, s.c(q[1]))
	p := s.add(w, s.c(q[0]))
	dp := s.fma(u, s.c(2*q[3]), s.c(q[2]))
	return s.fma(zh, s.c(q[0]), s.fma(zh, w, s.mul(zl, s.fma(zh, dp, p))))
}

func (g *gen) erf(x reg.Register) reg.VecVirtual {
	s, k := g.s, g.k
	ep := k.poly("erfPoly")
	a := s.abs(x)
	u := s.mul(x, x)
	s1 := s.fma(s.horner(ep[2:], u), u, s.c(ep[1]))
	small := s.fma(x, s.c(ep[0]), s.mul(x, s1))
	ac := s.minps(s.load(s.c(k.k("erfClamp"))), a)
	u2 := s.mul(ac, ac)
	ec := g.erfcTail(k.poly("erfcPoly"), 0.5, ac, s.neg(u2), s.fnma(ac, ac, u2), nil)
	large := s.copysign(s.sub(s.load(s.c(1)), ec), x)
	return s.sel(s.cmp(cmpLT, a, s.c(k.k("erfSmall"))), small, large)
}

// geluPhiTables returns the tables geluPhi looks up: the intervals'
// midpoints j - 15.5, then the 8 coefficient tables (c0 hi, c0 lo, c1..c6).
func (g *gen) geluPhiTables() []Mem {
	s, tab := g.s, g.k.poly("geluPhi")
	const n = 32 // intervals
	if len(tab) != 8*n {
		panic("asmgen: geluPhi needs 8 coefficients for each of 32 intervals")
	}
	mids := make([]float32, n)
	for j := range mids {
		mids[j] = float32(j) - 15.5
	}
	ts := []Mem{s.table32("geluPhiMid", mids)}
	for i := 0; i < 8; i++ {
		ts = append(ts, s.table32(fmt.Sprintf("geluPhi%d", i), tab[i*n:(i+1)*n]))
	}
	return ts
}

// hoistGeluPhi loads the first halves of geluPhi's tables into registers
// for the whole kernel (see isa.hoisted).
func (g *gen) hoistGeluPhi() {
	for _, t := range g.geluPhiTables() {
		g.s.hoist(t)
	}
}

// geluPhi returns x Phi(x) for |x| < geluPhiMax from the piecewise
// polynomial table (geluPhi32 in scalar.go); AVX-512 only.
func (g *gen) geluPhi(x reg.Register) reg.VecVirtual {
	s := g.s
	w, coef := g.geluPhiPoly(x)
	return s.fma(x, coef(0), s.mul(x, w))
}

// geluPhiPoly returns w = c0lo + v P(v), Phi(x) less the interval's
// constant, from the geluPhi table (geluPhiTerms in scalar.go), and the
// lookup of the interval's coefficients (coef(0) is the constant's high
// part).
func (g *gen) geluPhiPoly(x reg.Register) (reg.VecVirtual, func(int) reg.VecVirtual) {
	s, ts := g.s, g.geluPhiTables()
	j := s.cvtTrunc(s.fma(x, s.c(4), s.c(16)))
	v := s.fms(x, s.c(4), s.lookup32(ts[0], j))
	coef := func(i int) reg.VecVirtual { return s.lookup32(ts[1+i], j) }
	p := coef(7)
	for i := 6; i >= 2; i-- {
		p = s.fma(p, v, coef(i))
	}
	return s.fma(p, v, coef(1)), coef
}

// geluPhiLanes returns the lanes that geluPhi computes.
func (g *gen) geluPhiLanes(x reg.Register) mask {
	return g.s.cmp(cmpLT, g.s.abs(x), g.s.c(g.k.k("geluPhiMax")))
}

// geluErfAll returns the exact GELU for every x: the table where it
// applies, the erfc form elsewhere (on AVX2, which has no two-table
// permute, the erfc form everywhere).
func (g *gen) geluErfAll(x reg.Register) reg.VecVirtual {
	if !g.s.avx512 {
		return g.geluErf(x)
	}
	return g.s.sel(g.geluPhiLanes(x), g.geluPhi(x), g.geluErf(x))
}

func (g *gen) geluErf(x reg.Register) reg.VecVirtual {
	s, k := g.s, g.k
	ac, nh, nl := g.geluHalfSquare(x)
	tail := g.erfcTail(k.poly("geluErfcPoly"), k.k("geluZk"), ac, nh, nl, s.mul(ac, s.c(-0.5)))
	y := s.add(s.maxps(x, s.zero()), tail)
	return s.sel(s.cmp(cmpEQ, x, s.c(negInf)), s.c(nan), y)
}

func (g *gen) geluTanh(x reg.Register) reg.VecVirtual {
	s, k := g.s, g.k
	a := s.minps(s.load(s.c(k.k("geluTanhClamp"))), s.abs(x))
	vh, vl := g.geluTanhArg(a)
	t, n := g.expParts(vh, vl, expRange{nonPos: true})
	e := s.ldexp(g.scaleT(t, nil), n)
	num := s.sel(s.cmp(cmpGE, x, s.zero()), x, s.ldexp(g.scaleT(t, x), n))
	return s.div(num, s.add(e, s.c(1)))
}

// geluTanhArg returns -a (c1 + c2 a^2) as vh + vl (a >= 0).
func (g *gen) geluTanhArg(a reg.Register) (vh, vl reg.VecVirtual) {
	s, k := g.s, g.k
	c1h, c1l := k.k("geluC1Hi"), k.k("geluC1Lo")
	c2h, c2l := k.k("geluC2Hi"), k.k("geluC2Lo")
	ph := s.mul(a, a)
	pl := s.fms(a, a, ph)
	ah := s.mul(ph, s.c(c2h))
	al := s.add(s.fms(ph, s.c(c2h), ah), s.fma(pl, s.c(c2h), s.mul(ph, s.c(c2l))))
	c1 := s.load(s.c(c1h))
	sh := s.add(c1, ah)
	bb := s.sub(sh, c1)
	sl := s.add(s.sub(c1, s.sub(sh, bb)), s.sub(ah, bb))
	sl = s.add(sl, s.add(al, s.c(c1l)))
	p := s.mul(a, sh)
	vh = s.neg(p)
	vl = s.fnma(a, sl, s.fnma(a, sh, p))
	return vh, vl
}

// mirrorGrad returns y for x < 0 and 1 - y otherwise: a GELU derivative
// from y = g(-|x|) (geluErfGrad32 and geluTanhGrad32 in scalar.go).
func (g *gen) mirrorGrad(x, y reg.Register) reg.VecVirtual {
	s := g.s
	return s.sel(s.cmp(cmpLT, x, s.zero()), y, s.sub(s.load(s.c(1)), y))
}

// geluPhiGrad returns Phi(x) + x phi(x) for |x| < geluPhiMax from the
// geluPhi table and exp (geluPhiGrad32 in scalar.go); AVX-512 only.
func (g *gen) geluPhiGrad(x reg.Register) reg.VecVirtual {
	s := g.s
	w, coef := g.geluPhiPoly(x)
	u := s.mul(x, x)
	nh := s.mul(u, s.c(-0.5))
	nl := s.mul(s.fnma(x, x, u), s.c(0.5))
	cHi, cLo := g.k.k("invSqrt2PiHi"), g.k.k("invSqrt2PiLo")
	f := s.mul(x, s.c(cHi))
	fl := s.fma(x, s.c(cLo), s.fms(x, s.c(cHi), f))
	// -x^2/2 >= -8: exp never underflows here.
	t, n := g.expParts(nh, nl, expRange{nonPos: true, smallF: true})
	xphi := s.ldexp(s.add(s.fma(t, f, f), fl), n)
	return s.add(coef(0), s.add(w, xphi))
}

// geluErfGradAll returns the exact GELU's derivative for every x: the
// table where it applies, the erfc form elsewhere (AVX2: everywhere).
func (g *gen) geluErfGradAll(x reg.Register) reg.VecVirtual {
	if !g.s.avx512 {
		return g.geluErfGrad(x)
	}
	return g.s.sel(g.geluPhiLanes(x), g.geluPhiGrad(x), g.geluErfGrad(x))
}

func (g *gen) geluErfGrad(x reg.Register) reg.VecVirtual {
	s, k := g.s, g.k
	ac, nh, nl := g.geluHalfSquare(x)
	zq := g.erfcZQ(k.poly("geluErfcPoly"), k.k("geluZk"), ac)
	b := s.fnma(ac, s.c(k.k("invSqrt2PiHi")), s.fnma(ac, s.c(k.k("invSqrt2PiLo")), s.mul(zq, s.c(0.5))))
	return g.mirrorGrad(x, g.expMul(nh, nl, b, expRange{nonPos: true}))
}

func (g *gen) geluTanhGrad(x reg.Register) reg.VecVirtual {
	s, k := g.s, g.k
	a := s.minps(s.load(s.c(k.k("geluTanhClamp"))), s.abs(x))
	vh, vl := g.geluTanhArg(a)
	t, n := g.expParts(vh, vl, expRange{nonPos: true})
	d := s.add(s.ldexp(g.scaleT(t, nil), n), s.c(1))
	dv := s.fma(s.mul(a, s.c(k.k("geluC2x3"))), a, s.c(k.k("geluC1Hi")))
	f := s.fnma(a, dv, d)
	y := s.div(s.ldexp(g.scaleT(t, f), n), s.mul(d, d))
	return g.mirrorGrad(x, y)
}

// trigOut returns the lanes that sin and cos leave to the math package.
func (g *gen) trigOut(x reg.Register) mask {
	return g.s.cmp(cmpNLE, g.s.abs(x), g.s.c(g.k.k("trigMax")))
}

// sincos returns sin x, or cos x when cos, for |x| <= trigMax.
func (g *gen) sincos(x reg.Register, cos bool) reg.VecVirtual {
	s, k := g.s, g.k
	n := s.round(s.mul(x, s.c(k.k("twoOverPi"))))
	q := s.cvtInt(n)
	if cos {
		q = s.addi(q, s.cu(1))
	}
	r := s.fnma(n, s.c(k.k("pio2A")), x)
	r = s.fnma(n, s.c(k.k("pio2B")), r)
	r = s.fnma(n, s.c(k.k("pio2C")), r)
	r2 := s.mul(r, r)
	sn := s.fma(s.mul(r, r2), s.horner(k.poly("sinPoly"), r2), r)
	cs := s.fma(s.mul(r2, r2), s.horner(k.poly("cosPoly"), r2), s.fnma(r2, s.c(0.5), s.c(1)))
	y := s.sel(s.testBit(q, 1), cs, sn)
	return s.xor(y, s.shl(s.and(q, s.cu(2)), 30))
}

// geluHalfSquare returns a = min(|x|, geluClamp) and -a²/2 as a pair
// (high, low), the exponential's argument of the exact GELU's erfc forms.
func (g *gen) geluHalfSquare(x reg.Register) (ac, nh, nl reg.VecVirtual) {
	s, k := g.s, g.k
	ac = s.minps(s.load(s.c(k.k("geluClamp"))), s.abs(x))
	u2 := s.mul(ac, ac)
	nh = s.mul(u2, s.c(-0.5))
	nl = s.mul(s.fnma(ac, ac, u2), s.c(0.5))
	return ac, nh, nl
}
