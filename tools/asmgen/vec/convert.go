package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// convLoop emits a conversion kernel over whole vectors only (the Go wrapper
// converts the remaining elements with tensor/device's scalar functions).
func (g *gen) convLoop(name, sig string, body func(dst, src, i reg.Register)) {
	s := g.s
	g.text(name, sig)
	dst := Load(Param("dst").Base(), GP64())
	src := Load(Param("src").Base(), GP64())
	n := Load(Param("src").Len(), GP64())
	i, t := GP64(), GP64()
	XORQ(i, i)
	Label("loop")
	LEAQ(Mem{Base: i, Disp: s.lanes}, t)
	CMPQ(t, n)
	JA(LabelRef("done"))
	body(dst, src, i)
	ADDQ(U32(s.lanes), i)
	JMP(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}

func half(base, i reg.Register) Mem { return Mem{Base: base, Index: i, Scale: 2} }

func (g *gen) conversions() {
	s := g.s
	// float32 -> float16 with F16C, NaNs made sign|0x7e00 like the scalar code.
	g.convLoop("toHalf", "func(dst []uint16, src []float32)", func(dst, src, i reg.Register) {
		x := s.load(elem(src, i, 0))
		h := s.half()
		VCVTPS2PH(U8(0), x, h)
		out := s.half()
		if s.avx512 {
			k := s.cmp(cmpUnord, x, x)
			q := s.half()
			VPANDD(s.cu(0xfe00fe00), h, q)
			VPBLENDMW(q, h, k.r, out)
		} else {
			a, m, fix := XMM(), XMM(), XMM()
			VPAND(s.cu(0x7fff7fff), h, a)
			VPCMPGTW(s.cu(0x7c007c00), a, m)
			VPAND(s.cu(0x01ff01ff), m, fix)
			VPANDN(h, fix, out)
		}
		VMOVDQU(out, half(dst, i))
	})
	// float16 -> float32 with F16C; NaNs rebuilt from the bits so that
	// signalling NaNs keep their payload unquieted, like the scalar code.
	g.convLoop("fromHalf", "func(dst []float32, src []uint16)", func(dst, src, i reg.Register) {
		f, w := s.vec(), s.vec()
		VCVTPH2PS(half(src, i), f)
		VPMOVZXWD(half(src, i), w)
		t1 := s.shl(s.and(w, s.cu(0x7fff)), 13)
		t2 := s.shl(s.and(w, s.cu(0x8000)), 16)
		bits := s.or(s.or(t1, t2), s.cu(0x7f800000))
		VMOVUPS(s.sel(s.cmp(cmpUnord, f, f), bits, f), elem(dst, i, 0))
	})
	// float32 -> bfloat16, round to nearest even; NaN -> top bits | 0x40.
	g.convLoop("toBFloat", "func(dst []uint16, src []float32)", func(dst, src, i reg.Register) {
		x := s.load(elem(src, i, 0))
		top := s.shr(x, 16)
		t := s.addi(s.addi(x, s.cu(0x7fff)), s.and(top, s.cu(1)))
		r := s.sel(s.cmp(cmpUnord, x, x), s.or(top, s.cu(0x40)), s.shr(t, 16))
		if s.avx512 {
			VPMOVDW(r, half(dst, i))
		} else {
			hi, p := XMM(), XMM()
			VEXTRACTI128(U8(1), r, hi)
			VPACKUSDW(hi, r.AsX(), p)
			VMOVDQU(p, half(dst, i))
		}
	})
	g.convLoop("fromBFloat", "func(dst []float32, src []uint16)", func(dst, src, i reg.Register) {
		w := s.vec()
		VPMOVZXWD(half(src, i), w)
		VMOVUPS(s.shl(w, 16), elem(dst, i, 0))
	})
}

// widening emits addWidened(dst []float64, src []float32): dst[i] +=
// float64(src[i]) for the first len(src)&^(lanes-1) elements, each float
// widened exactly, each sum rounded once (a row sum's fold into its
// float64 totals).
func (g *gen) widening() {
	s := g.s
	g.convLoop("addWidened", "func(dst []float64, src []float32)", func(dst, src, i reg.Register) {
		half := s.bytes() / 2 // bytes of the floats widened into one vector of doubles
		for h := 0; h < 2; h++ {
			v := s.vec()
			VCVTPS2PD(Mem{Base: src, Index: i, Scale: 4, Disp: h * half}, v)
			d := Mem{Base: dst, Index: i, Scale: 8, Disp: h * s.bytes()}
			VADDPD(d, v, v)
			VMOVUPD(v, d)
		}
	})
}

// repeating emits repeatRuns(dst, src []float32, n int): src[i] broadcast
// into dst[i*n:], ceil(n/lanes) whole vectors a run, each run's last vector
// reaching into the next run, which overwrites it (the caller leaves room
// for the last run's). Expanding a value per short row (a row maximum over
// rows of 7) costs one broadcast and a store or two a row instead of a
// store an element.
func (g *gen) repeating() {
	s := g.s
	g.text("repeatRuns", "func(dst []float32, src []float32, n int)")
	dst := Load(Param("dst").Base(), GP64())
	src := Load(Param("src").Base(), GP64())
	runs := Load(Param("src").Len(), GP64())
	n := Load(Param("n"), GP64())
	step := GP64() // bytes from one run to the next
	MOVQ(n, step)
	SHLQ(U8(2), step)
	vecs := GP64() // vectors a run
	LEAQ(Mem{Base: n, Disp: s.lanes - 1}, vecs)
	shift := 3
	if s.lanes == 16 {
		shift = 4
	}
	SHRQ(U8(shift), vecs)
	TESTQ(runs, runs)
	JZ(LabelRef("done"))
	Label("run")
	v := s.vec()
	VBROADCASTSS(Mem{Base: src}, v)
	p, j := GP64(), GP64()
	MOVQ(dst, p)
	MOVQ(vecs, j)
	Label("store")
	VMOVUPS(v, Mem{Base: p})
	ADDQ(U32(s.bytes()), p)
	DECQ(j)
	JNZ(LabelRef("store"))
	ADDQ(step, dst)
	ADDQ(U32(4), src)
	DECQ(runs)
	JNZ(LabelRef("run"))
	Label("done")
	VZEROUPPER()
	RET()
}

// argFolding emits argMaxInto and argMinInto(best []float32, idx []int32,
// x []float32, row int32), the last partial vector under a mask: where x[i]
// beats best[i] (greater, or less; or x[i] is NaN and best[i] a number),
// best[i] = x[i] and idx[i] = row. Ties keep best, so folding a reduction's
// rows in order leaves each output's first extreme (first NaN) and its row.
// It also emits poolMaxInto, max pooling's rule: x[i] takes the lane when
// greater or NaN, so folding taps in order leaves the last NaN, else the
// first maximum.
func (g *gen) argFolding() {
	s := g.s
	for _, k := range []struct {
		name    string
		beats   int
		lastNaN bool
	}{{"argMaxInto", cmpGT, false}, {"argMinInto", cmpLT, false}, {"poolMaxInto", cmpGT, true}} {
		name := k.name
		g.text(name, "func(best []float32, idx []int32, x []float32, row int32)")
		bp := Load(Param("best").Base(), GP64())
		ip := Load(Param("idx").Base(), GP64())
		xp := Load(Param("x").Base(), GP64())
		n := Load(Param("x").Len(), GP64())
		row := s.vec()
		VBROADCASTSS(NewParamAddr("row", 72), row) // the int32's bits
		// fold returns the new best and idx vectors from x, best and idx.
		fold := func(x, b, ix reg.VecVirtual) (reg.VecVirtual, reg.VecVirtual) {
			nan := s.cmp(cmpUnord, x, x)
			if !k.lastNaN {
				nan = s.mand(nan, s.cmp(cmpOrd, b, b))
			}
			take := s.mor(s.cmp(k.beats, x, b), nan)
			return s.sel(take, x, b), s.sel(take, row, ix)
		}
		i, t := GP64(), GP64()
		XORQ(i, i)
		Label(name + "loop")
		LEAQ(Mem{Base: i, Disp: s.lanes}, t)
		CMPQ(t, n)
		JA(LabelRef(name + "tail"))
		nb, ni := fold(s.load(elem(xp, i, 0)), s.load(elem(bp, i, 0)), s.load(elem(ip, i, 0)))
		VMOVUPS(nb, elem(bp, i, 0))
		VMOVUPS(ni, elem(ip, i, 0))
		ADDQ(U32(s.lanes), i)
		JMP(LabelRef(name + "loop"))
		Label(name + "tail")
		rem := GP64()
		MOVQ(n, rem)
		SUBQ(i, rem)
		JE(LabelRef(name + "done"))
		tl := g.makeTail(rem)
		nb, ni = fold(g.loadTail(tl, elem(xp, i, 0)), g.loadTail(tl, elem(bp, i, 0)), g.loadTail(tl, elem(ip, i, 0)))
		g.storeTail(tl, nb, elem(bp, i, 0))
		g.storeTail(tl, ni, elem(ip, i, 0))
		Label(name + "done")
		VZEROUPPER()
		RET()
	}
}
