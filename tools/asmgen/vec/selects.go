package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The comparison and selection kernels of fused programs: float32
// comparisons writing one byte (0 or 1) per element, and selections by such
// bytes. They handle whole vectors only; the Go wrappers in
// cpu/internal/vec/selects.go finish the last len%16 elements.

// cmpPreds are the comparison kernels' names and VCMPPS predicates, in the
// order of vec's CmpOp (NaN compares false, except for "not equal").
var cmpPreds = []struct {
	name string
	pred int
}{
	{"Eq", cmpEQ}, {"Ne", cmpNEQ}, {"Lt", cmpLT}, {"Le", cmpLE}, {"Gt", cmpGT}, {"Ge", cmpGE},
}

// byteOnes returns a 16-byte vector of bytes equal to 1.
func (s *isa) byteOnes() Mem { return s.cu(0x01010101) }

// wholeVectors emits the loop of a whole-vectors kernel: body(i) handles the
// vector at element i; the loop ends when fewer than one vector is left.
func (g *gen) wholeVectors(n reg.Register, body func(i reg.GPVirtual)) {
	i, t := GP64(), GP64()
	XORQ(i, i)
	Label("loop")
	LEAQ(Mem{Base: i, Disp: g.s.lanes}, t)
	CMPQ(t, n)
	JA(LabelRef("done"))
	body(i)
	ADDQ(U32(g.s.lanes), i)
	JMP(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}

// storeBits stores one byte per lane of m, 1 where set and 0 elsewhere.
func (g *gen) storeBits(m mask, addr Mem) {
	s := g.s
	if s.avx512 {
		b := XMM()
		VMOVDQU8_Z(s.byteOnes().Offset(0), m.r, b)
		VMOVDQU(b, addr)
		return
	}
	y := m.r.(reg.VecVirtual)
	hi := XMM()
	VEXTRACTF128(U8(1), y, hi)
	w := XMM()
	VPACKSSDW(hi, y.AsX(), w) // 8 words of 0 or -1
	VPACKSSWB(w, w, w)        // 8 bytes (twice)
	VPAND(s.byteOnes().Offset(0), w, w)
	VMOVQ(w, addr)
}

// compareKernels emits cmpXxx(dst []uint8, a, b []float32) and
// cmpXxxScalar(dst []uint8, a []float32, s float32).
func (g *gen) compareKernels() {
	s := g.s
	for _, c := range cmpPreds {
		for _, scalar := range []bool{false, true} {
			name, sig := "cmp"+c.name, "func(dst []uint8, a, b []float32)"
			if scalar {
				name, sig = name+"Scalar", "func(dst []uint8, a []float32, s float32)"
			}
			g.text(name, sig)
			dst := Load(Param("dst").Base(), GP64())
			n := Load(Param("a").Len(), GP64())
			a := Load(Param("a").Base(), GP64())
			var b Op
			var bp reg.Register
			if scalar {
				x := Load(Param("s"), XMM())
				v := s.vec()
				VBROADCASTSS(x, v)
				b = v
			} else {
				bp = Load(Param("b").Base(), GP64())
			}
			g.wholeVectors(n, func(i reg.GPVirtual) {
				if !scalar {
					b = elem(bp, i, 0)
				}
				g.storeBits(s.cmp(c.pred, s.load(elem(a, i, 0)), b), Mem{Base: dst, Index: i, Scale: 1})
			})
		}
	}
}

// laneTest returns the lanes whose condition byte at addr is non-zero
// (zero when inv).
func (g *gen) laneTest(addr Mem, inv bool) mask {
	s := g.s
	if s.avx512 {
		c := XMM()
		VMOVDQU(addr, c)
		k := K()
		if inv {
			VPTESTNMB(c, c, k)
		} else {
			VPTESTMB(c, c, k)
		}
		return mask{k}
	}
	c := YMM()
	VPMOVZXBD(addr, c)
	m := YMM()
	VPCMPEQD(s.cu(0), c, m) // condition zero
	if !inv {
		m2 := YMM()
		VPCMPEQD(s.cu(0), m, m2) // condition non-zero
		m = m2
	}
	return mask{m}
}

// selectKernels emits sel(dst []float32, c []uint8, a, b []float32) (c ? a
// : b), selScalar(dst, c, a, s) (c ? a : s) and selScalarInv(dst, c, a, s)
// (c ? s : a).
func (g *gen) selectKernels() {
	s := g.s
	for _, form := range []string{"sel", "selScalar", "selScalarInv"} {
		sig := "func(dst []float32, c []uint8, a, b []float32)"
		if form != "sel" {
			sig = "func(dst []float32, c []uint8, a []float32, s float32)"
		}
		g.text(form, sig)
		dst := Load(Param("dst").Base(), GP64())
		n := Load(Param("a").Len(), GP64())
		cp := Load(Param("c").Base(), GP64())
		a := Load(Param("a").Base(), GP64())
		var other func(i reg.Register) Op
		if form == "sel" {
			bp := Load(Param("b").Base(), GP64())
			other = func(i reg.Register) Op { return elem(bp, i, 0) }
		} else {
			x := Load(Param("s"), XMM())
			v := s.vec()
			VBROADCASTSS(x, v)
			other = func(reg.Register) Op { return v }
		}
		inv := form == "selScalarInv"
		g.wholeVectors(n, func(i reg.GPVirtual) {
			m := g.laneTest(Mem{Base: cp, Index: i, Scale: 1}, inv)
			// m ? a : other, as other with a's lanes loaded over it.
			v := s.load(other(i))
			if s.avx512 {
				VMOVUPS(elem(a, i, 0), m.r, v)
			} else {
				v = s.sel(m, elem(a, i, 0), v)
			}
			VMOVUPS(v, elem(dst, i, 0))
		})
	}
}
