package main

import (
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// halves converts the low and high halves of the float32 vector v to float64
// vectors.
func (g *gen) halves(v reg.VecVirtual) (lo, hi reg.VecVirtual) {
	s := g.s
	lo, hi = s.vec(), s.vec()
	h := s.half()
	if s.avx512 {
		VCVTPS2PD(v.AsY(), lo)
		VEXTRACTF32X8(U8(1), v, h)
	} else {
		VCVTPS2PD(v.AsX(), lo)
		VEXTRACTF128(U8(1), v, h)
	}
	VCVTPS2PD(h, hi)
	return lo, hi
}

// hsumPD returns the sum of the float64 lanes of a+b in an XMM register.
func (g *gen) hsumPD(a, b reg.VecVirtual) reg.VecVirtual {
	s := g.s
	acc := s.vec()
	VADDPD(b, a, acc)
	x := XMM()
	if s.avx512 {
		y, yh := YMM(), YMM()
		VEXTRACTF64X4(U8(1), acc, yh)
		VADDPD(yh, acc.AsY(), y)
		xh := XMM()
		VEXTRACTF64X2(U8(1), y, xh)
		VADDPD(xh, y.AsX(), x)
	} else {
		xh := XMM()
		VEXTRACTF128(U8(1), acc, xh)
		VADDPD(xh, acc.AsX(), x)
	}
	x2, r := XMM(), XMM()
	VPERMILPD(U8(1), x, x2)
	VADDSD(x2, x, r)
	return r
}

// f64Kernel describes a reduction accumulated in float64: each vector of
// inputs adds to two float64 accumulators (one per half).
type f64Kernel struct {
	name   string
	dst    bool     // the kernel also stores a vector per step to dst
	inputs []string // input slices
	scalar string   // an optional float32 scalar parameter
	// fill is the value masked-off tail lanes load as (default 0).
	fill func(sc reg.VecVirtual) Op
	// step accumulates one vector; it returns the vector to store when dst.
	// tl is non-nil in the masked tail.
	step func(in []reg.VecVirtual, sc reg.VecVirtual, acc [2]reg.VecVirtual, tl *tail) reg.VecVirtual
}

func (g *gen) f64Reduction(k f64Kernel) {
	s := g.s
	params := k.inputs
	if k.dst {
		params = append([]string{"dst"}, params...)
	}
	sig := "func(" + strings.Join(params, ", ") + " []float32"
	if k.scalar != "" {
		sig += ", " + k.scalar + " float32"
	}
	sig += ") float64"
	g.text(k.name, sig)
	var dst reg.Register
	if k.dst {
		dst = Load(Param("dst").Base(), GP64())
	}
	n := Load(Param(k.inputs[0]).Len(), GP64())
	var bases []reg.Register
	for _, p := range k.inputs {
		bases = append(bases, Load(Param(p).Base(), GP64()))
	}
	var sc reg.VecVirtual
	if k.scalar != "" {
		x := Load(Param(k.scalar), XMM())
		sc = s.vec()
		VBROADCASTSS(x, sc)
	}
	acc := [2]reg.VecVirtual{s.zero(), s.zero()}
	i, t := GP64(), GP64()
	XORQ(i, i)
	W := s.lanes
	Label("loop")
	LEAQ(Mem{Base: i, Disp: W}, t)
	CMPQ(t, n)
	JA(LabelRef("tail"))
	var in []reg.VecVirtual
	for _, b := range bases {
		in = append(in, s.load(elem(b, i, 0)))
	}
	if v := k.step(in, sc, acc, nil); k.dst {
		VMOVUPS(v, elem(dst, i, 0))
	}
	ADDQ(U32(W), i)
	JMP(LabelRef("loop"))

	Label("tail")
	rem := GP64()
	MOVQ(n, rem)
	SUBQ(i, rem)
	JE(LabelRef("done"))
	tl := g.makeTail(rem)
	in = nil
	for _, b := range bases {
		if k.fill != nil {
			in = append(in, g.loadTailFill(tl, elem(b, i, 0), k.fill(sc)))
		} else {
			in = append(in, g.loadTail(tl, elem(b, i, 0)))
		}
	}
	if v := k.step(in, sc, acc, &tl); k.dst {
		g.storeTail(tl, v, elem(dst, i, 0))
	}
	Label("done")
	Store(g.hsumPD(acc[0], acc[1]), ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// zeroOff returns v with the lanes outside the tail zeroed.
func (g *gen) zeroOff(v reg.VecVirtual, tl *tail) reg.VecVirtual {
	if tl == nil {
		return v
	}
	s := g.s
	if s.avx512 {
		z := s.vec()
		VMOVUPS_Z(v, tl.k, z)
		return z
	}
	return s.and(v, tl.m)
}

func (g *gen) reductions() {
	s := g.s
	addHalves := func(v reg.VecVirtual, acc [2]reg.VecVirtual) {
		lo, hi := g.halves(v)
		VADDPD(lo, acc[0], acc[0])
		VADDPD(hi, acc[1], acc[1])
	}
	g.f64Reduction(f64Kernel{name: "sum", inputs: []string{"x"},
		step: func(in []reg.VecVirtual, _ reg.VecVirtual, acc [2]reg.VecVirtual, _ *tail) reg.VecVirtual {
			addHalves(in[0], acc)
			return nil
		}})
	g.f64Reduction(f64Kernel{name: "dot", inputs: []string{"a", "b"},
		step: func(in []reg.VecVirtual, _ reg.VecVirtual, acc [2]reg.VecVirtual, _ *tail) reg.VecVirtual {
			alo, ahi := g.halves(in[0])
			blo, bhi := g.halves(in[1])
			VFMADD231PD(blo, alo, acc[0])
			VFMADD231PD(bhi, ahi, acc[1])
			return nil
		}})
	g.f64Reduction(f64Kernel{name: "sumSqDiff", inputs: []string{"x"}, scalar: "mean",
		fill: func(sc reg.VecVirtual) Op { return sc },
		step: func(in []reg.VecVirtual, sc reg.VecVirtual, acc [2]reg.VecVirtual, _ *tail) reg.VecVirtual {
			// The mean is widened with the same conversion as the data.
			mlo, _ := g.halves(sc)
			lo, hi := g.halves(in[0])
			dlo, dhi := s.vec(), s.vec()
			VSUBPD(mlo, lo, dlo)
			VSUBPD(mlo, hi, dhi)
			VFMADD231PD(dlo, dlo, acc[0])
			VFMADD231PD(dhi, dhi, acc[1])
			return nil
		}})
	for _, store := range []bool{true, false} {
		name := "expSub"
		inputs := []string{"x"}
		if !store {
			name = "sumExpSub"
		}
		g.f64Reduction(f64Kernel{name: name, dst: store, inputs: inputs, scalar: "m",
			step: func(in []reg.VecVirtual, sc reg.VecVirtual, acc [2]reg.VecVirtual, tl *tail) reg.VecVirtual {
				// exp(x-m) with x-m as an exact pair d+dl (TwoSum); dl is
				// NaN when x or m is infinite and is then dropped.
				x := in[0]
				d := s.sub(x, sc)
				bb := s.sub(d, x)
				dl := s.sub(s.sub(x, s.sub(d, bb)), s.add(sc, bb))
				dl = s.sel(s.cmp(cmpUnord, dl, dl), s.zero(), dl)
				e := g.expHL(d, dl, expRange{})
				addHalves(g.zeroOff(e, tl), acc)
				return e
			}})
	}
	g.extreme(true)
	g.extreme(false)
	g.indexOf()
}

// hreduce returns the maximum (max) or minimum of the lanes of v in the low
// lane of an XMM register.
func (g *gen) hreduce(v reg.VecVirtual, max bool) reg.VecVirtual {
	s := g.s
	op := VMINPS
	if max {
		op = VMAXPS
	}
	var x reg.VecVirtual
	if s.avx512 {
		yh, y := YMM(), YMM()
		VEXTRACTF32X8(U8(1), v, yh)
		op(yh, v.AsY(), y)
		xh := XMM()
		x = XMM()
		VEXTRACTF32X4(U8(1), y, xh)
		op(xh, y.AsX(), x)
	} else {
		xh := XMM()
		x = XMM()
		VEXTRACTF128(U8(1), v, xh)
		op(xh, v.AsX(), x)
	}
	x2, x3, x4, x5 := XMM(), XMM(), XMM(), XMM()
	VPERMILPS(U8(0x4e), x, x2)
	op(x2, x, x3)
	VPERMILPS(U8(0xb1), x3, x4)
	op(x4, x3, x5)
	return x5
}

// extreme emits max (or min): NaN-propagating, for a non-empty slice.
func (g *gen) extreme(max bool) {
	s := g.s
	name, fill := "min", inf
	if max {
		name, fill = "max", negInf
	}
	g.text(name, "func(x []float32) float32")
	base := Load(Param("x").Base(), GP64())
	n := Load(Param("x").Len(), GP64())
	acc := s.load(s.c(fill))
	var nans mask
	if s.avx512 {
		nans = mask{K()}
		KXORW(nans.r, nans.r, nans.r)
	} else {
		nans = mask{s.zero()}
	}
	accumulate := func(v reg.VecVirtual) {
		if max {
			VMAXPS(v, acc, acc)
		} else {
			VMINPS(v, acc, acc)
		}
		u := s.cmp(cmpUnord, v, v)
		if s.avx512 {
			KORW(u.r, nans.r, nans.r)
		} else {
			VORPS(u.r, nans.r, nans.r)
		}
	}
	i, t := GP64(), GP64()
	XORQ(i, i)
	W := s.lanes
	Label("loop")
	LEAQ(Mem{Base: i, Disp: W}, t)
	CMPQ(t, n)
	JA(LabelRef("tail"))
	accumulate(s.load(elem(base, i, 0)))
	ADDQ(U32(W), i)
	JMP(LabelRef("loop"))
	Label("tail")
	rem := GP64()
	MOVQ(n, rem)
	SUBQ(i, rem)
	JE(LabelRef("done"))
	tl := g.makeTail(rem)
	accumulate(g.loadTailFill(tl, elem(base, i, 0), s.c(fill)))
	Label("done")
	g.anyLane(nans, "nan")
	Store(g.hreduce(acc, max), ReturnIndex(0))
	VZEROUPPER()
	RET()
	Label("nan")
	r := XMM()
	MOVSS(s.c(nan), r)
	Store(r, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// indexOf emits indexOf(x, v) int: the first i with x[i] == v, or with x[i]
// NaN when v is NaN; -1 when there is none.
func (g *gen) indexOf() {
	s := g.s
	g.text("indexOf", "func(x []float32, v float32) int")
	base := Load(Param("x").Base(), GP64())
	n := Load(Param("x").Len(), GP64())
	vx := Load(Param("v"), XMM())
	vb := s.vec()
	VBROADCASTSS(vx, vb)
	i, t := GP64(), GP64()
	bits := GP32()
	for _, nanPath := range []bool{false, true} {
		p := ""
		if nanPath {
			p = "nan_"
			Label("nan")
		} else {
			UCOMISS(vx, vx)
			JPS(LabelRef("nan"))
		}
		match := func(x reg.VecVirtual) mask {
			if nanPath {
				return s.cmp(cmpUnord, x, x)
			}
			return s.cmp(cmpEQ, x, vb)
		}
		XORQ(i, i)
		W := s.lanes
		Label(p + "loop")
		LEAQ(Mem{Base: i, Disp: W}, t)
		CMPQ(t, n)
		JA(LabelRef(p + "tail"))
		b := s.maskBits(match(s.load(elem(base, i, 0))))
		MOVL(b, bits)
		TESTL(bits, bits)
		JNE(LabelRef("found"))
		ADDQ(U32(W), i)
		JMP(LabelRef(p + "loop"))
		Label(p + "tail")
		rem := GP64()
		MOVQ(n, rem)
		SUBQ(i, rem)
		JE(LabelRef("none"))
		tl := g.makeTail(rem)
		b = s.maskBits(match(g.loadTail(tl, elem(base, i, 0))))
		MOVL(b, bits)
		ANDL(tl.bits, bits)
		JNE(LabelRef("found"))
		JMP(LabelRef("none"))
	}
	Label("found")
	lane := GP32()
	TZCNTL(bits, lane)
	r := GP64()
	MOVL(lane, r.As32())
	ADDQ(i, r)
	Store(r, ReturnIndex(0))
	VZEROUPPER()
	RET()
	Label("none")
	m := GP64()
	MOVQ(I64(-1), m)
	Store(m, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
