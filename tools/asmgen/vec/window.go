package main

// The windowed kernels of the CPU backend's pooling and convolution:
// 2×2/stride-2 max pooling with argmax indices and its backward, and the
// strided row copy and row add that im2col and col2im are built from. They
// are self-contained (plain avo, own constant tables) and registered apart
// from the elementwise kernel sets: cpu/internal/vec/pool_amd64.go picks
// them by name.

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// winGen emits the window kernels of one ISA.
type winGen struct{ s *isa }

// windowKernels emits every window kernel for s.
func windowKernels(s *isa) {
	w := &winGen{s}
	w.maxPool2x2()
	w.maxUnpool2x2()
	w.rows(false)
	w.rows(true)
	w.conv3x3()
	w.corr3x3()
	w.col2im3x3()
	w.splitPairs()
}

// table returns a read-only table of 32-bit values, emitted once.
func (w *winGen) table(name string, vals []uint32) Mem {
	name = fmt.Sprintf("win_%s_%d", name, w.s.lanes)
	if m, ok := constants[name]; ok {
		return m
	}
	m := GLOBL(name, RODATA|NOPTR)
	for i, v := range vals {
		DATA(4*i, U32(v))
	}
	constants[name] = m
	return m
}

// laneTable returns the table whose lane i holds f(i), one vector long.
func (w *winGen) laneTable(name string, f func(i int) int) Mem {
	v := make([]uint32, w.s.lanes)
	for i := range v {
		v[i] = uint32(f(i))
	}
	return w.table(name, v)
}

// ones16 is the AVX2 mask table: 16 all-ones lanes, then 16 zero lanes;
// the vector at lane 16-n has its first n (0..16) lanes set, and the one
// 8 lanes further its first n-8.
func (w *winGen) ones16() Mem {
	v := make([]uint32, 32)
	for i := 0; i < 16; i++ {
		v[i] = 0xffffffff
	}
	return w.table("ones16", v)
}

// lmask is the mask of the first n lanes: an opmask (AVX-512) or a lane
// mask vector (AVX2).
type lmask struct{ r reg.Register }

// firstLanes returns the masks of the first n lanes of two consecutive
// vectors (lo, then hi); n (a 64-bit register, clobbered) must lie in
// [0, 2·lanes].
func (w *winGen) firstLanes(n reg.GPVirtual) (lo, hi lmask) {
	if w.s.avx512 {
		bits := GP32()
		MOVL(U32(0xffffffff), bits)
		BZHIL(n.As32(), bits, bits)
		kl, kh := K(), K()
		KMOVW(bits, kl)
		SHRL(U8(16), bits)
		KMOVW(bits, kh)
		return lmask{kl}, lmask{kh}
	}
	t := GP64()
	LEAQ(w.ones16(), t)
	NEGQ(n)
	l, h := YMM(), YMM()
	VMOVUPS(Mem{Base: t, Index: n, Scale: 4, Disp: 64}, l)
	VMOVUPS(Mem{Base: t, Index: n, Scale: 4, Disp: 96}, h)
	return lmask{l}, lmask{h}
}

// param loads an integer or pointer argument into a fresh register.
func (w *winGen) param(c gotypes.Component) reg.GPVirtual {
	r := GP64()
	Load(c, r)
	return r
}

// zero returns a zeroed vector.
func (w *winGen) zero() reg.VecVirtual {
	v := w.s.vec()
	if w.s.avx512 {
		VPXORD(v, v, v)
	} else {
		VPXOR(v, v, v)
	}
	return v
}

// loadM loads the lanes of m from addr, the others zero.
func (w *winGen) loadM(addr Mem, m lmask) reg.VecVirtual {
	v := w.s.vec()
	if w.s.avx512 {
		VMOVUPS_Z(addr, m.r, v)
	} else {
		VMASKMOVPS(addr, m.r, v)
	}
	return v
}

// load loads a vector from addr, all lanes when m is nil.
func (w *winGen) load(addr Mem, m *lmask) reg.VecVirtual {
	if m != nil {
		return w.loadM(addr, *m)
	}
	v := w.s.vec()
	VMOVUPS(addr, v)
	return v
}

// store stores v at addr, the lanes of m only when m is set.
func (w *winGen) store(v reg.Register, addr Mem, m *lmask) {
	switch {
	case m == nil:
		VMOVUPS(v, addr)
	case w.s.avx512:
		VMOVUPS(v, m.r, addr)
	default:
		VMASKMOVPS(v, m.r, addr)
	}
}

// bcast32 broadcasts the low 32 bits of a general register to every lane.
func (w *winGen) bcast32(r reg.GPVirtual) reg.VecVirtual {
	v := w.s.vec()
	if w.s.avx512 {
		VPBROADCASTD(r.As32(), v)
		return v
	}
	x := XMM()
	VMOVQ(r, x) // VEX: a legacy-SSE MOVQ with dirty upper halves stalls
	VPBROADCASTD(x, v)
	return v
}

// maxPool2x2 emits
//
//	maxPool2x2(out []float32, idx []int32, x []float32, ldx, iw, oh, ow int)
//
// Output (r, c) of the oh×ow plane out is the winner of input rows 2r and
// 2r+1 (x[2r*ldx:], x[(2r+1)*ldx:]), columns 2c and 2c+1, taken in the
// order (2r, 2c), (2r, 2c+1), (2r+1, 2c), (2r+1, 2c+1): the last NaN, else
// the first largest value (PyTorch's rule). Unless idx is empty, idx gets
// the winner's position in an input plane iw wide. Each candidate replaces
// the running winner where it is NaN or greater: two compares and a blend,
// no branches.
func (w *winGen) maxPool2x2() {
	s := w.s
	TEXT("maxPool2x2"+s.name, NOSPLIT, "func(out []float32, idx []int32, x []float32, ldx, iw, oh, ow int)")
	Pragma("noescape")
	outp := w.param(Param("out").Base())
	idxp := w.param(Param("idx").Base())
	nidx := w.param(Param("idx").Len())
	x0 := w.param(Param("x").Base())
	ldx := w.param(Param("ldx"))
	iw := w.param(Param("iw"))
	oh := w.param(Param("oh"))
	ow := w.param(Param("ow"))
	SHLQ(U8(2), ldx) // bytes per input row
	TESTQ(oh, oh)
	JE(LabelRef("done"))
	TESTQ(ow, ow)
	JE(LabelRef("done"))
	TESTQ(nidx, nidx)
	JE(LabelRef("noidx"))
	w.poolRows(true, outp, idxp, x0, ldx, iw, oh, ow)
	JMP(LabelRef("done"))
	Label("noidx")
	w.poolRows(false, outp, idxp, x0, ldx, iw, oh, ow)
	Label("done")
	VZEROUPPER()
	RET()
}

// poolRows emits maxPool2x2's row loop, with or without indices.
func (w *winGen) poolRows(withIdx bool, outp, idxp, x0, ldx, iw, oh, ow reg.GPVirtual) {
	s := w.s
	p := "n_"
	if withIdx {
		p = "i_"
	}
	L := s.lanes
	// Lane order of the deinterleaved candidates: natural on AVX-512
	// (VPERMT2PS), pairs of 128-bit halves swapped on AVX2 (VSHUFPS), fixed
	// by a VPERMPD before the stores.
	order := func(i int) int { return i }
	if !s.avx512 {
		order = func(i int) int { return [8]int{0, 1, 4, 5, 2, 3, 6, 7}[i] }
	}
	even, odd := w.pairTables()
	var dW, dW1 reg.VecVirtual
	rowBase := GP64() // input position of the row pair's first element
	if withIdx {
		dW = w.bcast32(iw)
		t := GP64()
		LEAQ(Mem{Base: iw, Disp: 1}, t)
		dW1 = w.bcast32(t)
		XORQ(rowBase, rowBase)
	}
	x1 := GP64()
	c := GP64()
	rem := GP64()
	Label(p + "row")
	MOVQ(x0, x1)
	ADDQ(ldx, x1)
	var pos reg.VecVirtual
	if withIdx {
		pos = w.bcast32(rowBase)
		VPADDD(w.laneTable("pos2order", func(i int) int { return 2 * order(i) }), pos, pos)
	}
	XORQ(c, c)

	// chunk pools L outputs from column c; with m, the first rem of them.
	chunk := func(tail bool) {
		var mOut, mLo, mHi *lmask
		if tail {
			n := GP64()
			MOVQ(rem, n)
			lo, _ := w.firstLanes(n)
			mOut = &lo
			MOVQ(rem, n)
			SHLQ(U8(1), n)
			l, h := w.firstLanes(n)
			mLo, mHi = &l, &h
		}
		// The four candidates of each output, in window order.
		var cand [4]reg.VecVirtual
		for row, base := range []reg.GPVirtual{x0, x1} {
			lo := w.load(Mem{Base: base, Index: c, Scale: 8}, mLo)
			hi := w.load(Mem{Base: base, Index: c, Scale: 8, Disp: 4 * L}, mHi)
			e, o := w.splitVecs(lo, hi, even, odd, false)
			cand[2*row], cand[2*row+1] = e, o
		}
		best := cand[0]
		var arg reg.VecVirtual
		if withIdx {
			arg = w.zero()
		}
		deltas := []Op{w.laneTable("one", func(int) int { return 1 }), dW, dW1}
		for k := 1; k < 4; k++ {
			v := cand[k]
			nb, na := s.vec(), s.vec()
			if s.avx512 {
				nan, gt, take := K(), K(), K()
				VCMPPS(U8(cmpUnord), v, v, nan)
				VCMPPS(U8(cmpGT), best, v, gt) // v > best, both numbers
				KORW(nan, gt, take)
				VBLENDMPS(v, best, take, nb)
				if withIdx {
					VPBLENDMD(deltas[k-1], arg, take, na)
				}
			} else {
				nan, gt, take := s.vec(), s.vec(), s.vec()
				VCMPPS(U8(cmpUnord), v, v, nan)
				VCMPPS(U8(cmpGT), best, v, gt)
				VORPS(gt, nan, take)
				VBLENDVPS(take, v, best, nb)
				if withIdx {
					VBLENDVPS(take, deltas[k-1], arg, na)
				}
			}
			best = nb
			if withIdx {
				arg = na
			}
		}
		if !s.avx512 {
			fixed := s.vec()
			VPERMPD(U8(0xd8), best, fixed)
			best = fixed
		}
		w.store(best, Mem{Base: outp, Index: c, Scale: 4}, mOut)
		if withIdx {
			at := s.vec()
			VPADDD(pos, arg, at)
			if !s.avx512 {
				fixed := s.vec()
				VPERMQ(U8(0xd8), at, fixed)
				at = fixed
			}
			w.store(at, Mem{Base: idxp, Index: c, Scale: 4}, mOut)
			VPADDD(w.laneTable("step", func(int) int { return 2 * L }), pos, pos)
		}
	}

	Label(p + "col")
	MOVQ(ow, rem)
	SUBQ(c, rem)
	CMPQ(rem, U32(L))
	JL(LabelRef(p + "tail"))
	chunk(false)
	ADDQ(U32(L), c)
	JMP(LabelRef(p + "col"))
	Label(p + "tail")
	TESTQ(rem, rem)
	JE(LabelRef(p + "next"))
	chunk(true)
	Label(p + "next")
	LEAQ(Mem{Base: outp, Index: ow, Scale: 4}, outp)
	if withIdx {
		LEAQ(Mem{Base: idxp, Index: ow, Scale: 4}, idxp)
		LEAQ(Mem{Base: rowBase, Index: iw, Scale: 2}, rowBase)
	}
	LEAQ(Mem{Base: x0, Index: ldx, Scale: 2}, x0)
	DECQ(oh)
	JNE(LabelRef(p + "row"))
}

// cmpOrd is VCMPPS's ordered predicate (neither operand NaN).
const cmpOrd = 0x07

// maxUnpool2x2 emits
//
//	maxUnpool2x2(dx []float32, dy []float32, idx []int32, ldx, iw, oh, ow int) bool
//
// maxPool2x2's backward: rows 2r and 2r+1 of dx (dx[2r*ldx:], columns
// [0, 2ow)) get dy[r*ow+c] at the position idx[r*ow+c] names among window
// (r, c)'s four (positions in a plane iw wide), zero at the other three.
// It returns false as soon as an index is not one of its window's
// positions, having written part of dx.
func (w *winGen) maxUnpool2x2() {
	s := w.s
	L := s.lanes
	TEXT("maxUnpool2x2"+s.name, NOSPLIT, "func(dx []float32, dy []float32, idx []int32, ldx, iw, oh, ow int) bool")
	Pragma("noescape")
	d0 := w.param(Param("dx").Base())
	dyp := w.param(Param("dy").Base())
	idxp := w.param(Param("idx").Base())
	ldx := w.param(Param("ldx"))
	iw := w.param(Param("iw"))
	oh := w.param(Param("oh"))
	ow := w.param(Param("ow"))
	SHLQ(U8(2), ldx)
	TESTQ(oh, oh)
	JE(LabelRef("ok"))
	TESTQ(ow, ow)
	JE(LabelRef("ok"))
	dW := w.bcast32(iw)
	t := GP64()
	LEAQ(Mem{Base: iw, Disp: 1}, t)
	dW1 := w.bcast32(t)
	var ilo, ihi reg.VecVirtual
	if s.avx512 {
		ilo, ihi = s.vec(), s.vec()
		VMOVUPS(w.laneTable("ilvlo", func(i int) int { return i/2 + 16*(i%2) }), ilo)
		VMOVUPS(w.laneTable("ilvhi", func(i int) int { return 8 + i/2 + 16*(i%2) }), ihi)
	}
	// rowPos holds each lane's window start in the row pair: 2·lane, plus
	// 2·iw per row pair.
	rowPos := s.vec()
	VMOVUPS(w.laneTable("pos2", func(i int) int { return 2 * i }), rowPos)
	d1, c, rem := GP64(), GP64(), GP64()
	Label("row")
	MOVQ(d0, d1)
	ADDQ(ldx, d1)
	pos := s.vec()
	VMOVUPS(rowPos, pos)
	XORQ(c, c)

	chunk := func(tail bool) {
		var mIn, mLo, mHi *lmask
		bits, want := GP32(), GP32()
		MOVL(U32(1<<L-1), want)
		if tail {
			n := GP64()
			MOVQ(rem, n)
			BZHIL(rem.As32(), want, want)
			lo, _ := w.firstLanes(n)
			mIn = &lo
		}
		g := w.load(Mem{Base: dyp, Index: c, Scale: 4}, mIn)
		id := w.load(Mem{Base: idxp, Index: c, Scale: 4}, mIn)
		code := s.vec()
		VPSUBD(pos, id, code) // idx - (first position of the window)
		var v [4]reg.VecVirtual
		if s.avx512 {
			var m [4]reg.Register
			m[0], m[1], m[2], m[3] = K(), K(), K(), K()
			VPCMPEQD(w.zero(), code, m[0])
			VPCMPEQD(w.laneTable("one", func(int) int { return 1 }), code, m[1])
			VPCMPEQD(dW, code, m[2])
			VPCMPEQD(dW1, code, m[3])
			all := K()
			KORW(m[1], m[0], all)
			KORW(m[2], all, all)
			KORW(m[3], all, all)
			KMOVW(all, bits)
			for k := range v {
				v[k] = s.vec()
				VMOVAPS_Z(g, m[k], v[k])
			}
		} else {
			var m [4]reg.VecVirtual
			for k := range m {
				m[k] = s.vec()
			}
			VPCMPEQD(w.zero(), code, m[0])
			VPCMPEQD(w.laneTable("one", func(int) int { return 1 }), code, m[1])
			VPCMPEQD(dW, code, m[2])
			VPCMPEQD(dW1, code, m[3])
			all, all2 := s.vec(), s.vec()
			VPOR(m[1], m[0], all)
			VPOR(m[3], m[2], all2)
			VPOR(all2, all, all)
			VMOVMSKPS(all, bits)
			for k := range v {
				v[k] = s.vec()
				VANDPS(g, m[k], v[k])
			}
		}
		ANDL(want, bits)
		CMPL(bits, want)
		JNE(LabelRef("bad"))
		if tail {
			n := GP64()
			MOVQ(rem, n)
			SHLQ(U8(1), n)
			l, h := w.firstLanes(n)
			mLo, mHi = &l, &h
		}
		// Interleave (v0, v1) into row 2r and (v2, v3) into row 2r+1.
		for row, base := range []reg.GPVirtual{d0, d1} {
			a, b := v[2*row], v[2*row+1]
			lo, hi := s.vec(), s.vec()
			if s.avx512 {
				VMOVAPS(a, lo)
				VPERMT2PS(b, ilo, lo)
				VMOVAPS(a, hi)
				VPERMT2PS(b, ihi, hi)
			} else {
				ul, uh := s.vec(), s.vec()
				VUNPCKLPS(b, a, ul)
				VUNPCKHPS(b, a, uh)
				VPERM2F128(U8(0x20), uh, ul, lo)
				VPERM2F128(U8(0x31), uh, ul, hi)
			}
			w.store(lo, Mem{Base: base, Index: c, Scale: 8}, mLo)
			w.store(hi, Mem{Base: base, Index: c, Scale: 8, Disp: 4 * L}, mHi)
		}
		VPADDD(w.laneTable("step", func(int) int { return 2 * L }), pos, pos)
	}

	Label("col")
	MOVQ(ow, rem)
	SUBQ(c, rem)
	CMPQ(rem, U32(L))
	JL(LabelRef("tail"))
	chunk(false)
	ADDQ(U32(L), c)
	JMP(LabelRef("col"))
	Label("tail")
	TESTQ(rem, rem)
	JE(LabelRef("next"))
	chunk(true)
	Label("next")
	LEAQ(Mem{Base: dyp, Index: ow, Scale: 4}, dyp)
	LEAQ(Mem{Base: idxp, Index: ow, Scale: 4}, idxp)
	VPADDD(dW, rowPos, rowPos)
	VPADDD(dW, rowPos, rowPos)
	LEAQ(Mem{Base: d0, Index: ldx, Scale: 2}, d0)
	DECQ(oh)
	JNE(LabelRef("row"))
	Label("ok")
	res := GP8()
	MOVB(U8(1), res)
	Store(res, ReturnIndex(0))
	VZEROUPPER()
	RET()
	Label("bad")
	fail := GP8()
	MOVB(U8(0), fail)
	Store(fail, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// exactTail emits a row's tail, columns [j, cols), copied or added in
// pieces of 8, 4 and 1 lanes that cover exactly those columns. A masked
// full-width vector would span the next row's columns too when rows are
// less than a vector apart; the loads of the next row (and of the next
// tap's overlapping row) then could not pass its store and would wait for
// it to commit.
func (w *winGen) exactTail(add bool, dp, sp, j, cols reg.GPVirtual) {
	rem := GP64()
	MOVQ(cols, rem)
	SUBQ(j, rem)
	at := func(b reg.GPVirtual) Mem { return Mem{Base: b, Index: j, Scale: 4} }
	if w.s.avx512 {
		TESTQ(U32(8), rem)
		JE(LabelRef("t4"))
		a := YMM()
		VMOVUPS(at(sp), a)
		if add {
			VADDPS(at(dp), a, a)
		}
		VMOVUPS(a, at(dp))
		ADDQ(U32(8), j)
		Label("t4")
	}
	TESTQ(U32(4), rem)
	JE(LabelRef("t1"))
	a := XMM()
	VMOVUPS(at(sp), a)
	if add {
		VADDPS(at(dp), a, a)
	}
	VMOVUPS(a, at(dp))
	ADDQ(U32(4), j)
	Label("t1")
	CMPQ(j, cols)
	JAE(LabelRef("tdone"))
	x := XMM()
	VMOVSS(at(sp), x)
	if add {
		VADDSS(at(dp), x, x)
	}
	VMOVSS(x, at(dp))
	INCQ(j)
	JMP(LabelRef("t1"))
	Label("tdone")
}

// rows emits
//
//	copyBlocks(dst []float32, ldd, bd int, src []float32, lds, bs int, blocks, rows, cols int)
//	addBlocks(dst []float32, ldd, bd int, src []float32, lds, bs int, blocks, rows, cols int)
//
// dst[k*bd+i*ldd+j] = src[k*bs+i*lds+j] (copy), or += (add), for k < blocks,
// i < rows, j < cols: im2col's and col2im's move of one kernel tap for
// every channel at once.
func (w *winGen) rows(add bool) {
	s := w.s
	L := s.lanes
	name := "copyBlocks"
	if add {
		name = "addBlocks"
	}
	TEXT(name+s.name, NOSPLIT, "func(dst []float32, ldd, bd int, src []float32, lds, bs int, blocks, rows, cols int)")
	Pragma("noescape")
	db := w.param(Param("dst").Base())
	ldd := w.param(Param("ldd"))
	sb := w.param(Param("src").Base())
	lds := w.param(Param("lds"))
	nb := w.param(Param("blocks"))
	cols := w.param(Param("cols"))
	SHLQ(U8(2), ldd)
	SHLQ(U8(2), lds)
	TESTQ(nb, nb)
	JE(LabelRef("done"))
	TESTQ(cols, cols)
	JE(LabelRef("done"))
	// The tail mask (cols mod L lanes) is the same for every row.
	full := GP64()
	MOVQ(cols, full)
	ANDQ(I32(int32(-L)), full)
	var tm lmask
	if !add {
		n := GP64()
		MOVQ(cols, n)
		SUBQ(full, n)
		tm, _ = w.firstLanes(n)
	}
	dp, sp, nr, j := GP64(), GP64(), GP64(), GP64()
	Label("block")
	MOVQ(db, dp)
	MOVQ(sb, sp)
	Load(Param("rows"), nr)
	TESTQ(nr, nr)
	JE(LabelRef("done"))
	Label("row")
	XORQ(j, j)
	step := func(m *lmask, u int) {
		at := func(b reg.GPVirtual) Mem { return Mem{Base: b, Index: j, Scale: 4, Disp: u * 4 * L} }
		v := w.load(at(sp), m)
		if add {
			d := w.load(at(dp), m)
			r := s.vec()
			VADDPS(v, d, r)
			v = r
		}
		w.store(v, at(dp), m)
	}
	t := GP64()
	Label("col4")
	LEAQ(Mem{Base: j, Disp: 4 * L}, t)
	CMPQ(t, full)
	JA(LabelRef("col1"))
	for u := 0; u < 4; u++ {
		step(nil, u)
	}
	MOVQ(t, j)
	JMP(LabelRef("col4"))
	Label("col1")
	CMPQ(j, full)
	JAE(LabelRef("tail"))
	step(nil, 0)
	ADDQ(U32(L), j)
	JMP(LabelRef("col1"))
	Label("tail")
	CMPQ(j, cols)
	JAE(LabelRef("next"))
	if add {
		w.exactTail(true, dp, sp, j, cols)
	} else {
		step(&tm, 0) // masked: measured faster for copies
	}
	Label("next")
	ADDQ(ldd, dp)
	ADDQ(lds, sp)
	DECQ(nr)
	JNE(LabelRef("row"))
	b := GP64()
	Load(Param("bd"), b)
	SHLQ(U8(2), b)
	ADDQ(b, db)
	Load(Param("bs"), b)
	SHLQ(U8(2), b)
	ADDQ(b, sb)
	DECQ(nb)
	JNE(LabelRef("block"))
	Label("done")
	VZEROUPPER()
	RET()
}

// conv3x3 emits
//
//	conv3x3(y []float32, ldy int, x []float32, ldx int, w []float32, rows, cols int, acc bool)
//
// the direct 3×3 correlation of one input plane with one filter (stride
// and dilation one, no padding): y[r*ldy+c] = Σ w[3a+b]·x[(r+a)*ldx+c+b]
// over a, b < 3, plus y's own value when acc is set. The taps are summed in
// the order a, b with fused multiply-adds, from zero (or y).
func (w *winGen) conv3x3() {
	s := w.s
	L := s.lanes
	TEXT("conv3x3"+s.name, NOSPLIT, "func(y []float32, ldy int, x []float32, ldx int, w []float32, rows, cols int, acc bool)")
	Pragma("noescape")
	yp := w.param(Param("y").Base())
	ldy := w.param(Param("ldy"))
	xp := w.param(Param("x").Base())
	ldx := w.param(Param("ldx"))
	wp := w.param(Param("w").Base())
	nr := w.param(Param("rows"))
	cols := w.param(Param("cols"))
	accf := GP8()
	Load(Param("acc"), accf)
	SHLQ(U8(2), ldy)
	SHLQ(U8(2), ldx)
	var wv [9]reg.VecVirtual
	for t := range wv {
		wv[t] = s.vec()
		VBROADCASTSS(Mem{Base: wp, Disp: 4 * t}, wv[t])
	}
	n := GP64()
	MOVQ(cols, n)
	ANDQ(U32(L-1), n)
	tm, _ := w.firstLanes(n)
	full := GP64()
	MOVQ(cols, full)
	ANDQ(I32(int32(-L)), full)
	j, x1, x2 := GP64(), GP64(), GP64()
	for _, accumulate := range []bool{false, true} {
		p := "s_"
		if accumulate {
			p = "a_"
			Label("acc")
		} else {
			TESTB(accf, accf)
			JNE(LabelRef("acc"))
		}
		Label(p + "row")
		LEAQ(Mem{Base: xp, Index: ldx, Scale: 1}, x1)
		LEAQ(Mem{Base: x1, Index: ldx, Scale: 1}, x2)
		XORQ(j, j)
		chunk := func(m *lmask) {
			sum := s.vec()
			if accumulate {
				VMOVUPS(w.load(Mem{Base: yp, Index: j, Scale: 4}, m), sum)
			} else {
				VXORPS(sum, sum, sum)
			}
			for a, row := range []reg.GPVirtual{xp, x1, x2} {
				for b := 0; b < 3; b++ {
					at := Mem{Base: row, Index: j, Scale: 4, Disp: 4 * b}
					if m == nil {
						VFMADD231PS(at, wv[3*a+b], sum)
					} else {
						VFMADD231PS(w.loadM(at, *m), wv[3*a+b], sum)
					}
				}
			}
			w.store(sum, Mem{Base: yp, Index: j, Scale: 4}, m)
		}
		Label(p + "col")
		CMPQ(j, full)
		JAE(LabelRef(p + "tail"))
		chunk(nil)
		ADDQ(U32(L), j)
		JMP(LabelRef(p + "col"))
		Label(p + "tail")
		CMPQ(j, cols)
		JAE(LabelRef(p + "next"))
		chunk(&tm)
		Label(p + "next")
		ADDQ(ldy, yp)
		ADDQ(ldx, xp)
		DECQ(nr)
		JNE(LabelRef(p + "row"))
		JMP(LabelRef("done"))
	}
	Label("done")
	VZEROUPPER()
	RET()
}

// corr3x3 emits
//
//	corr3x3(acc []float32, dy []float32, ldy int, x []float32, ldx int, rows, cols int)
//
// the 3×3 weight gradient of one plane pair: acc[3a+b] += Σ dy[r*ldy+c]·
// x[(r+a)*ldx+c+b] over r < rows, c < cols. Each tap accumulates in its own
// vector across the plane and is reduced (in float32, lanes pairwise) once.
func (w *winGen) corr3x3() {
	s := w.s
	L := s.lanes
	TEXT("corr3x3"+s.name, NOSPLIT, "func(acc []float32, dy []float32, ldy int, x []float32, ldx int, rows, cols int)")
	Pragma("noescape")
	ap := w.param(Param("acc").Base())
	dp := w.param(Param("dy").Base())
	ldy := w.param(Param("ldy"))
	xp := w.param(Param("x").Base())
	ldx := w.param(Param("ldx"))
	nr := w.param(Param("rows"))
	cols := w.param(Param("cols"))
	SHLQ(U8(2), ldy)
	SHLQ(U8(2), ldx)
	var sum [9]reg.VecVirtual
	for t := range sum {
		sum[t] = s.vec()
		VXORPS(sum[t], sum[t], sum[t])
	}
	n := GP64()
	MOVQ(cols, n)
	ANDQ(U32(L-1), n)
	tm, _ := w.firstLanes(n)
	full := GP64()
	MOVQ(cols, full)
	ANDQ(I32(int32(-L)), full)
	j, x1, x2 := GP64(), GP64(), GP64()
	Label("row")
	LEAQ(Mem{Base: xp, Index: ldx, Scale: 1}, x1)
	LEAQ(Mem{Base: x1, Index: ldx, Scale: 1}, x2)
	XORQ(j, j)
	chunk := func(m *lmask) {
		d := w.load(Mem{Base: dp, Index: j, Scale: 4}, m)
		for a, row := range []reg.GPVirtual{xp, x1, x2} {
			for b := 0; b < 3; b++ {
				at := Mem{Base: row, Index: j, Scale: 4, Disp: 4 * b}
				if m == nil {
					VFMADD231PS(at, d, sum[3*a+b])
				} else {
					VFMADD231PS(w.loadM(at, *m), d, sum[3*a+b])
				}
			}
		}
	}
	Label("col")
	CMPQ(j, full)
	JAE(LabelRef("tail"))
	chunk(nil)
	ADDQ(U32(L), j)
	JMP(LabelRef("col"))
	Label("tail")
	CMPQ(j, cols)
	JAE(LabelRef("next"))
	chunk(&tm)
	Label("next")
	ADDQ(ldy, dp)
	ADDQ(ldx, xp)
	DECQ(nr)
	JNE(LabelRef("row"))
	for t := range sum {
		h := w.hsum(sum[t])
		VADDSS(Mem{Base: ap, Disp: 4 * t}, h, h)
		VMOVSS(h, Mem{Base: ap, Disp: 4 * t})
	}
	VZEROUPPER()
	RET()
}

// hsum returns the float32 sum of v's lanes in the low lane of an XMM
// register, adding halves pairwise.
func (w *winGen) hsum(v reg.VecVirtual) reg.VecVirtual {
	x := XMM()
	if w.s.avx512 {
		yh, y := YMM(), YMM()
		VEXTRACTF32X8(U8(1), v, yh)
		VADDPS(yh, v.AsY(), y)
		xh := XMM()
		VEXTRACTF32X4(U8(1), y, xh)
		VADDPS(xh, y.AsX(), x)
	} else {
		xh := XMM()
		VEXTRACTF128(U8(1), v, xh)
		VADDPS(xh, v.AsX(), x)
	}
	x2, x3, x4, x5 := XMM(), XMM(), XMM(), XMM()
	VPERMILPS(U8(0x4e), x, x2)
	VADDPS(x2, x, x3)
	VPERMILPS(U8(0xb1), x3, x4)
	VADDPS(x4, x3, x5)
	return x5
}

// col2im3x3 emits
//
//	col2im3x3(dx []float32, ldx int, col []float32, ts int, oh, ow int)
//
// col2im of one channel of a 3×3, stride-one, unpadded convolution: tap
// t = 3a+b's oh×ow block of the patch matrix starts at col[t*ts] (rows ow
// apart), and input row i, column j of the (oh+2)×(ow+2) plane dx (rows ldx
// apart) is set to Σ col[(3a+b)*ts + (i-a)*ow + j-b] over the taps whose
// output position (i-a, j-b) exists, in the order a, b. Each input vector
// is summed in a register from shifted masked loads and stored once: no
// read-modify-write of dx, no clearing.
func (w *winGen) col2im3x3() {
	s := w.s
	L := s.lanes
	TEXT("col2im3x3"+s.name, NOSPLIT, "func(dx []float32, ldx int, col []float32, ts int, oh, ow int)")
	Pragma("noescape")
	dxp := w.param(Param("dx").Base())
	ldx := w.param(Param("ldx"))
	cp := w.param(Param("col").Base())
	ts := w.param(Param("ts"))
	oh := w.param(Param("oh"))
	ow := w.param(Param("ow"))
	SHLQ(U8(2), ldx)
	SHLQ(U8(2), ts)
	TESTQ(oh, oh)
	JE(LabelRef("done"))
	TESTQ(ow, ow)
	JE(LabelRef("done"))
	i, j := GP64(), GP64()
	XORQ(i, i)
	Label("row")
	XORQ(j, j)
	Label("chunk")
	// Lanes of this chunk: columns j..j+L-1 of the input row, of which the
	// first ow+2-j exist; tap b reads output columns j-b+lane, valid for
	// b-j <= lane < ow+b-j.
	acc := s.vec()
	VXORPS(acc, acc, acc)
	for a := 0; a < 3; a++ {
		skip := fmt.Sprintf("a%d_skip", a)
		r := GP64() // output row i-a, when it exists
		MOVQ(i, r)
		SUBQ(U32(a), r)
		JL(LabelRef(skip))
		CMPQ(r, oh)
		JGE(LabelRef(skip))
		rowp := GP64() // col + 3a*ts + r*ow*4
		IMULQ(ow, r)
		LEAQ(Mem{Base: cp, Index: r, Scale: 4}, rowp)
		for k := 0; k < 3*a; k++ {
			ADDQ(ts, rowp)
		}
		for b := 0; b < 3; b++ {
			lo, hi := GP64(), GP64()
			// hi = clamp(ow+b-j, 0, L); lo = clamp(b-j, 0, L)
			MOVQ(ow, hi)
			ADDQ(U32(b), hi)
			SUBQ(j, hi)
			w.clamp(hi, L)
			MOVQ(U64(uint64(b)), lo)
			SUBQ(j, lo)
			w.clamp(lo, L)
			m := w.window(lo, hi)
			v := w.loadM(Mem{Base: rowp, Index: j, Scale: 4, Disp: -4 * b}, m)
			VADDPS(v, acc, acc)
			if b < 2 {
				ADDQ(ts, rowp) // the next tap's block
			}
		}
		Label(skip)
	}
	// Store the lanes of columns below ow+2.
	n := GP64()
	MOVQ(ow, n)
	ADDQ(U32(2), n)
	SUBQ(j, n)
	w.clamp(n, L)
	z := GP64()
	XORQ(z, z)
	sm := w.window(z, n)
	w.store(acc, Mem{Base: dxp, Index: j, Scale: 4}, &sm)
	ADDQ(U32(L), j)
	MOVQ(ow, n)
	ADDQ(U32(2), n)
	CMPQ(j, n)
	JL(LabelRef("chunk"))
	ADDQ(ldx, dxp)
	INCQ(i)
	MOVQ(oh, n)
	ADDQ(U32(2), n)
	CMPQ(i, n)
	JL(LabelRef("row"))
	Label("done")
	VZEROUPPER()
	RET()
}

// clamp limits the signed register x to [0, hi].
func (w *winGen) clamp(x reg.GPVirtual, hi int) {
	z, h := GP64(), GP64()
	XORQ(z, z)
	CMPQ(x, z)
	CMOVQLT(z, x)
	MOVQ(U64(uint64(hi)), h)
	CMPQ(x, h)
	CMOVQGT(h, x)
}

// window returns the mask of lanes [lo, hi) of one vector (lo and hi in
// [0, lanes], both clobbered).
func (w *winGen) window(lo, hi reg.GPVirtual) lmask {
	if w.s.avx512 {
		all, below := GP32(), GP32()
		MOVL(U32(0xffff), all)
		MOVL(U32(0xffff), below)
		BZHIL(hi.As32(), all, all)
		BZHIL(lo.As32(), below, below)
		ANDNL(all, below, all) // all &^ below
		k := K()
		KMOVW(all, k)
		return lmask{k}
	}
	h, _ := w.firstLanes(hi)
	l, _ := w.firstLanes(lo)
	m := YMM()
	VANDNPS(h.r, l.r, m) // h &^ l
	return lmask{m}
}

// splitPairs emits
//
//	splitPairs(even, odd, x []float32, pairs int)
//
// even[i] = x[2i] and odd[i] = x[2i+1] for i < pairs: a row split by
// column parity, as a width stride of two reads it. AVX-512 picks each half
// from two vectors with one two-source permute; AVX2 shuffles within
// 128-bit lanes and then orders the 64-bit quarters. The last vector of
// pairs is loaded and stored under masks.
func (w *winGen) splitPairs() {
	s := w.s
	L := s.lanes
	TEXT("splitPairs"+s.name, NOSPLIT, "func(even, odd, x []float32, pairs int)")
	Pragma("noescape")
	ep := w.param(Param("even").Base())
	op := w.param(Param("odd").Base())
	xp := w.param(Param("x").Base())
	n := w.param(Param("pairs"))
	even, odd := w.pairTables()
	i := GP64()
	XORQ(i, i)
	// step splits the L pairs from pair i: all of them, or under masks la
	// and lb (x's two vectors) and ls (the halves).
	step := func(la, lb, ls *lmask) {
		a := w.load(Mem{Base: xp, Index: i, Scale: 8}, la)
		b := w.load(Mem{Base: xp, Index: i, Scale: 8, Disp: 4 * L}, lb)
		e, o := w.splitVecs(a, b, even, odd, true)
		w.store(e, Mem{Base: ep, Index: i, Scale: 4}, ls)
		w.store(o, Mem{Base: op, Index: i, Scale: 4}, ls)
	}
	t := GP64()
	Label("loop")
	LEAQ(Mem{Base: i, Disp: L}, t)
	CMPQ(t, n)
	JA(LabelRef("tail"))
	step(nil, nil, nil)
	MOVQ(t, i)
	JMP(LabelRef("loop"))
	Label("tail")
	CMPQ(i, n)
	JAE(LabelRef("done"))
	r := GP64()
	MOVQ(n, r)
	SUBQ(i, r)
	r2 := GP64()
	LEAQ(Mem{Base: r, Index: r, Scale: 1}, r2)
	la, lb := w.firstLanes(r2)
	ls, _ := w.firstLanes(r)
	step(&la, &lb, &ls)
	Label("done")
	VZEROUPPER()
	RET()
}

// pairTables loads the AVX-512 permute indices of the even and odd lanes of
// two vectors (splitVecs); AVX2 needs none.
func (w *winGen) pairTables() (even, odd reg.VecVirtual) {
	if !w.s.avx512 {
		return nil, nil
	}
	even, odd = w.s.vec(), w.s.vec()
	VMOVUPS(w.laneTable("even", func(i int) int { return 2 * i }), even)
	VMOVUPS(w.laneTable("odd", func(i int) int { return 2*i + 1 }), odd)
	return even, odd
}

// splitVecs returns the even- and odd-indexed elements of the 2L floats in
// lo and hi: in order with AVX-512 (a two-source permute by pairTables'
// indices each); with AVX2 each 128-bit lane holds two of lo's then two of
// hi's, which ordered puts in order (a permute of 64-bit quarters).
func (w *winGen) splitVecs(lo, hi, even, odd reg.VecVirtual, ordered bool) (e, o reg.VecVirtual) {
	e, o = w.s.vec(), w.s.vec()
	if w.s.avx512 {
		VMOVAPS(lo, e)
		VPERMT2PS(hi, even, e)
		VMOVAPS(lo, o)
		VPERMT2PS(hi, odd, o)
		return e, o
	}
	VSHUFPS(U8(0x88), hi, lo, e)
	VSHUFPS(U8(0xdd), hi, lo, o)
	if ordered {
		VPERMPD(U8(0xd8), e, e)
		VPERMPD(U8(0xd8), o, o)
	}
	return e, o
}
