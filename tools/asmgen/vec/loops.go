package main

import (
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// gen is the generator state of one ISA.
type gen struct {
	s     *isa
	k     *coeffs
	names []string // base names of the kernels emitted, in order
}

// text starts a kernel: the function name is base plus the ISA suffix.
func (g *gen) text(base, sig string) {
	g.names = append(g.names, base)
	TEXT(base+g.s.name, NOSPLIT, sig)
	Pragma("noescape")
}

// ewKernel describes an elementwise kernel: dst[i] = body(inputs[i]...,
// scalars...).
type ewKernel struct {
	name    string   // function name without the ISA suffix
	inputs  []string // names of the input slices (besides dst)
	scalars []string // names of float32 scalar parameters
	unroll  int      // vectors per main-loop iteration
	// interleave emits the unrolled vectors' instructions alternately
	// rather than one vector after the other.
	interleave bool
	lag        float64 // see isa.interleave
	// body computes one output vector from the input vectors and the
	// broadcast scalars.
	body func(in, sc []reg.VecVirtual) reg.VecVirtual
	// fast, when set, is a cheaper body that gives the same result as body
	// on the lanes fastOK returns: the unrolled loop runs it when every
	// lane of its vectors qualifies, and body otherwise (so each lane's
	// result depends on its own input only, never on its neighbours').
	fast   func(in, sc []reg.VecVirtual) reg.VecVirtual
	fastOK func(in []reg.VecVirtual) mask
	// setup, when set, runs before the loops (to hoist table loads).
	setup func()
	// out, when set, returns the lanes the kernel cannot compute: the
	// kernel then returns int, the count of elements done before the first
	// vector holding such a lane.
	out func(in []reg.VecVirtual) mask
	// mode says how the kernel reads and writes memory (see storeMode);
	// the function name gets the mode's suffix.
	mode storeMode
}

// storeMode says how an elementwise kernel moves its data.
type storeMode int

const (
	// storeCached: ordinary loads and stores.
	storeCached storeMode = iota
	// storePrefetch: ordinary stores, the inputs prefetched prefetchAhead
	// bytes ahead (for inputs streamed from memory into a cached result).
	storePrefetch
	// storeStream: the inputs prefetched, whole vectors stored with
	// non-temporal stores (VMOVNTPS, after a head that aligns dst to the
	// vector size; the partial tail uses an ordinary masked store) and an
	// SFENCE before returning, so the results are visible to whichever core
	// reads them next. For destinations far larger than the caches: no read
	// for ownership of dst's lines and no eviction of other data.
	storeStream
)

// suffix returns the mode's suffix of kernel names.
func (m storeMode) suffix() string { return [...]string{"", "PF", "NT"}[m] }

// prefetchAhead is how far ahead of its loads, in bytes, a prefetching
// kernel prefetches each input. On the development machine (tanh over 10M
// floats on two cores, streaming stores) 2048 and 4096 measured alike and
// 21% faster than 1024, and 512 was slower still.
const prefetchAhead = 2048

// allModes lists the store modes generated for the elementwise kernels
// that have them.
var allModes = []storeMode{storeCached, storePrefetch, storeStream}

// modes emits k once per store mode.
func (g *gen) modes(k ewKernel) {
	for _, m := range allModes {
		k.mode = m
		g.elementwise(k)
	}
}

// prefetch emits one prefetch per cache line that an iteration of `bytes`
// bytes per input loads (at least one), prefetchAhead ahead of index i.
func (g *gen) prefetch(bases []reg.Register, i reg.Register, bytes int) {
	for _, b := range bases {
		for off := 0; off < max(bytes, 1); off += 64 {
			PREFETCHT0(elem(b, i, prefetchAhead+off))
		}
	}
}

// store writes v to addr: with VMOVNTPS when the kernel streams (addr
// must then be aligned to the vector size).
func (g *gen) store(k ewKernel, v reg.Register, addr Mem) {
	if k.mode == storeStream {
		VMOVNTPS(v, addr)
		return
	}
	VMOVUPS(v, addr)
}

// tailMask is the AVX2 table of 8 all-ones then 8 zero lanes.
var tailMaskTable Mem

func tailMask() Mem {
	if tailMaskTable.Symbol.Name == "" {
		tailMaskTable = GLOBL("tailmask", RODATA|NOPTR)
		for i := 0; i < 16; i++ {
			v := uint32(0)
			if i < 8 {
				v = 0xffffffff
			}
			DATA(4*i, U32(v))
		}
	}
	return tailMaskTable
}

// tail holds what a masked tail iteration needs.
type tail struct {
	k    reg.Register // AVX-512 opmask of the remaining lanes
	m    reg.Register // AVX2 lane mask vector
	bits reg.GPVirtual
}

// makeTail builds the mask for the rem (1..lanes-1) remaining lanes.
func (g *gen) makeTail(rem reg.GPVirtual) tail {
	s := g.s
	bits := GP32()
	MOVL(U32(0xffff), bits)
	BZHIL(rem.As32(), bits, bits)
	if s.avx512 {
		k := K()
		KMOVW(bits, k)
		return tail{k: k, bits: bits}
	}
	t := GP64()
	LEAQ(tailMask(), t)
	neg := GP64()
	MOVQ(rem, neg)
	NEGQ(neg)
	m := YMM()
	VMOVUPS(Mem{Base: t, Index: neg, Scale: 4, Disp: 32}, m)
	return tail{m: m, bits: bits}
}

// loadTail loads the remaining lanes at addr, the others zero.
func (g *gen) loadTail(t tail, addr Mem) reg.VecVirtual {
	v := g.s.vec()
	if g.s.avx512 {
		VMOVUPS_Z(addr, t.k, v)
	} else {
		VMASKMOVPS(addr, t.m, v)
	}
	return v
}

// loadTailFill loads the remaining lanes at addr, the others from fill.
func (g *gen) loadTailFill(t tail, addr Mem, fill Op) reg.VecVirtual {
	s := g.s
	if s.avx512 {
		v := s.load(fill)
		VMOVUPS(addr, t.k, v)
		return v
	}
	v := YMM()
	VMASKMOVPS(addr, t.m, v)
	return s.sel(mask{t.m}, v, s.load(fill))
}

// storeTail stores the remaining lanes of v at addr.
func (g *gen) storeTail(t tail, v reg.Register, addr Mem) {
	if g.s.avx512 {
		VMOVUPS(v, t.k, addr)
	} else {
		VMASKMOVPS(v, t.m, addr)
	}
}

// anyLane jumps to label when any lane of m is set.
func (g *gen) anyLane(m mask, label string) {
	if g.s.avx512 {
		KORTESTW(m.r, m.r)
	} else {
		VTESTPS(m.r, m.r)
	}
	JNE(LabelRef(label))
}

func elem(base, i reg.Register, disp int) Mem {
	return Mem{Base: base, Index: i, Scale: 4, Disp: disp}
}

// elementwise emits one elementwise kernel.
func (g *gen) elementwise(k ewKernel) {
	s := g.s
	params := append([]string{"dst"}, k.inputs...)
	sig := "func(" + strings.Join(params, ", ") + " []float32"
	for _, sc := range k.scalars {
		sig += ", " + sc + " float32"
	}
	sig += ")"
	if k.out != nil {
		sig += " int"
	}
	g.text(k.name+k.mode.suffix(), sig)
	dst := Load(Param("dst").Base(), GP64())
	n := Load(Param("dst").Len(), GP64())
	var bases []reg.Register
	for _, p := range k.inputs {
		bases = append(bases, Load(Param(p).Base(), GP64()))
	}
	var sc []reg.VecVirtual
	for _, p := range k.scalars {
		x := Load(Param(p), XMM())
		v := s.vec()
		VBROADCASTSS(x, v)
		sc = append(sc, v)
	}
	if k.setup != nil {
		k.setup()
	}
	defer clear(s.hoisted)
	i := GP64()
	XORQ(i, i)
	if k.mode == storeStream {
		g.alignHead(k, dst, n, i, bases, sc)
	}
	t := GP64()
	W := s.lanes
	step := func(u int) {
		var in []reg.VecVirtual
		for _, b := range bases {
			in = append(in, s.load(elem(b, i, u*s.bytes())))
		}
		if k.out != nil {
			g.anyLane(k.out(in), "exit")
		}
		g.store(k, k.body(in, sc), elem(dst, i, u*s.bytes()))
	}
	unrolled := k.unroll > 1 && k.out == nil
	if unrolled {
		Label("loopU")
		LEAQ(Mem{Base: i, Disp: W * k.unroll}, t)
		CMPQ(t, n)
		JA(LabelRef("loop1"))
		if k.mode != storeCached {
			g.prefetch(bases, i, k.unroll*s.bytes())
		}
		if k.fast != nil {
			g.fastSlow(k, bases, sc, dst, i)
		} else if k.interleave {
			var bodies []func()
			for u := 0; u < k.unroll; u++ {
				bodies = append(bodies, func() {
					var in []reg.VecVirtual
					for _, b := range bases {
						in = append(in, s.load(elem(b, i, u*s.bytes())))
					}
					y := k.body(in, sc)
					s.emit(func() { g.store(k, y, elem(dst, i, u*s.bytes())) })
				})
			}
			s.interleave(k.lag, bodies...)
		} else {
			for u := 0; u < k.unroll; u++ {
				step(u)
			}
		}
		ADDQ(U32(W*k.unroll), i)
		JMP(LabelRef("loopU"))
	}
	Label("loop1")
	LEAQ(Mem{Base: i, Disp: W}, t)
	CMPQ(t, n)
	JA(LabelRef("tail"))
	if !unrolled && k.mode != storeCached {
		g.prefetch(bases, i, s.bytes())
	}
	step(0)
	ADDQ(U32(W), i)
	JMP(LabelRef("loop1"))

	Label("tail")
	rem := GP64()
	MOVQ(n, rem)
	SUBQ(i, rem)
	JE(LabelRef("done"))
	tl := g.makeTail(rem)
	in := g.loadTails(tl, bases, i)
	if k.out != nil {
		g.anyLane(k.out(in), "exit")
	}
	g.storeTail(tl, k.body(in, sc), elem(dst, i, 0))

	Label("done")
	if k.mode == storeStream {
		SFENCE()
	}
	if k.out != nil {
		Store(n, ReturnIndex(0))
		VZEROUPPER()
		RET()
		Label("exit")
		Store(i, ReturnIndex(0))
	}
	VZEROUPPER()
	RET()
}

// alignHead emits the head of a streaming kernel: the elements before
// the first vector-aligned element of dst (at most n, none when dst is
// aligned), computed as one masked vector with an ordinary masked store,
// leaving i at the first aligned element. dst must be 4-byte aligned (the
// Go wrappers check).
func (g *gen) alignHead(k ewKernel, dst, n, i reg.Register, bases []reg.Register, sc []reg.VecVirtual) {
	h := GP64()
	MOVQ(dst, h)
	NEGQ(h)
	ANDQ(U32(g.s.bytes()-1), h)
	SHRQ(U8(2), h) // elements up to the next vector boundary
	CMPQ(h, n)
	CMOVQGT(n, h) // at most n
	TESTQ(h, h)
	JE(LabelRef("aligned"))
	tl := g.makeTail(h)
	in := g.loadTails(tl, bases, i)
	g.storeTail(tl, k.body(in, sc), elem(dst, i, 0))
	MOVQ(h, i)
	Label("aligned")
}

// fastSlow emits the body of an unrolled iteration of a kernel with a fast
// path: load every vector, test whether all their lanes qualify, and run
// the fast bodies (interleaved, as k.lag says) or the full ones (one after
// the other: they are rare, and the registers hoisted by k.setup leave
// too few to interleave them), each branch
// storing its results and falling through to the loop's increment at
// label "stepU".
func (g *gen) fastSlow(k ewKernel, bases []reg.Register, sc []reg.VecVirtual, dst, i reg.Register) {
	s := g.s
	ins := make([][]reg.VecVirtual, k.unroll)
	var all mask
	for u := range ins {
		for _, b := range bases {
			ins[u] = append(ins[u], s.load(elem(b, i, u*s.bytes())))
		}
		ok := k.fastOK(ins[u])
		if u == 0 {
			all = ok
		} else {
			all = s.mand(all, ok)
		}
	}
	if !s.avx512 {
		panic("asmgen: fast paths need AVX-512 opmasks")
	}
	KORTESTW(all.r, all.r) // CF: every lane qualifies
	JCC(LabelRef("slowU"))
	run := func(body func(in, sc []reg.VecVirtual) reg.VecVirtual, lag float64) {
		var bodies []func()
		for u := range ins {
			bodies = append(bodies, func() {
				y := body(ins[u], sc)
				s.emit(func() { g.store(k, y, elem(dst, i, u*s.bytes())) })
			})
		}
		s.interleave(lag, bodies...)
	}
	run(k.fast, k.lag)
	JMP(LabelRef("stepU"))
	Label("slowU")
	run(k.body, 1) // rare: one vector after the other, fewest registers
	Label("stepU")
}

// unaryBody is the code of a one-input kernel on one vector.
type unaryBody struct {
	name string
	f    func(x reg.VecVirtual) reg.VecVirtual
}

// simpleUnary returns the bodies of the cheap one-input kernels.
func (g *gen) simpleUnary() []unaryBody {
	s := g.s
	return []unaryBody{
		{"neg", func(x reg.VecVirtual) reg.VecVirtual { return s.neg(x) }},
		{"abs", func(x reg.VecVirtual) reg.VecVirtual { return s.abs(x) }},
		{"relu", func(x reg.VecVirtual) reg.VecVirtual { return s.relu(x, s.zero()) }},
		{"sqrt", func(x reg.VecVirtual) reg.VecVirtual { v := s.vec(); VSQRTPS(x, v); return v }},
		{"rsqrt", func(x reg.VecVirtual) reg.VecVirtual { v := s.vec(); VSQRTPS(x, v); return s.div(s.load(s.c(1)), v) }},
		{"recip", func(x reg.VecVirtual) reg.VecVirtual { return s.div(s.load(s.c(1)), x) }},
		{"copy", func(x reg.VecVirtual) reg.VecVirtual { return x }},
	}
}

// heavyUnary returns the bodies of the transcendental one-input kernels
// (sin and cos, which can stop early, are not among them).
func (g *gen) heavyUnary() []unaryBody {
	return []unaryBody{
		{"exp", func(x reg.VecVirtual) reg.VecVirtual { return g.expHL(x, nil, expRange{smallF: true}) }}, // unscaled: below the clamp exp rounds to 0 anyway
		{"log", func(x reg.VecVirtual) reg.VecVirtual { return g.log(x) }},
		{"tanh", func(x reg.VecVirtual) reg.VecVirtual { return g.tanh(x) }},
		{"sigmoid", func(x reg.VecVirtual) reg.VecVirtual { return g.sigmoid(x) }},
		{"silu", func(x reg.VecVirtual) reg.VecVirtual { return g.silu(x) }},
		{"erf", func(x reg.VecVirtual) reg.VecVirtual { return g.erf(x) }},
		{"geluErf", func(x reg.VecVirtual) reg.VecVirtual { return g.geluErfAll(x) }},
		{"geluTanh", func(x reg.VecVirtual) reg.VecVirtual { return g.geluTanh(x) }},
		{"geluErfGrad", func(x reg.VecVirtual) reg.VecVirtual { return g.geluErfGradAll(x) }},
		{"geluTanhGrad", func(x reg.VecVirtual) reg.VecVirtual { return g.geluTanhGrad(x) }},
	}
}

// unaryBodies returns every one-input body but copy's.
func (g *gen) unaryBodies() []unaryBody {
	return append(g.simpleUnary()[:6], g.heavyUnary()...)
}

// unaryKernels emits every one-input kernel.
func (g *gen) unaryKernels() {
	s := g.s
	for _, u := range g.simpleUnary() {
		f := u.f
		g.modes(ewKernel{name: u.name, inputs: []string{"x"}, unroll: 4,
			body: func(in, _ []reg.VecVirtual) reg.VecVirtual { return f(in[0]) }})
	}
	bodies := map[string]func(x reg.VecVirtual) reg.VecVirtual{}
	for _, h := range g.heavyUnary() {
		bodies[h.name] = h.f
	}
	heavy := []struct {
		name string
		// lag512 and lag2 place the second of two interleaved vectors that
		// fraction of a body behind the first (0: lockstep), on AVX-512 and
		// AVX2; negative means one vector at a time (the pair does not fit
		// in the registers: avo's allocator would then reach for Y16 and up,
		// which AVX2 lacks, or run out of AVX-512 opmask registers).
		// asm_test.go in cpu/internal/vec checks the AVX2 register use.
		lag512, lag2 float64
	}{
		{"exp", 0, 0},
		{"log", -1, 0},
		{"tanh", 0, 0},
		{"sigmoid", 0, 0},
		{"silu", 0, 0},
		{"erf", 0, -1},
		{"geluErf", 0, -1},
		{"geluTanh", 0, 0},
		{"geluErfGrad", 0, -1},
		{"geluTanhGrad", 0, 0},
	}
	for _, h := range heavy {
		f := bodies[h.name]
		lag := h.lag2
		if s.avx512 {
			lag = h.lag512
		}
		u := 1
		if lag >= 0 {
			u = 2
		}
		k := ewKernel{name: h.name, inputs: []string{"x"}, unroll: u, interleave: true, lag: lag,
			body: func(in, _ []reg.VecVirtual) reg.VecVirtual { return f(in[0]) }}
		if h.name == "geluErf" && s.avx512 {
			// Nearly every input of a trained network's GELU is in the
			// table's range: only vectors with a lane outside it pay for
			// the erfc form too.
			k.fast = func(in, _ []reg.VecVirtual) reg.VecVirtual { return g.geluPhi(in[0]) }
			k.fastOK = func(in []reg.VecVirtual) mask { return g.geluPhiLanes(in[0]) }
			k.setup = g.hoistGeluPhi
		}
		if h.name == "geluErfGrad" && s.avx512 {
			// The same split as geluErf's, with the tables read from
			// memory: hoisted, they leave too few registers for two
			// interleaved vectors.
			k.fast = func(in, _ []reg.VecVirtual) reg.VecVirtual { return g.geluPhiGrad(in[0]) }
			k.fastOK = func(in []reg.VecVirtual) mask { return g.geluPhiLanes(in[0]) }
		}
		g.modes(k)
	}
	for _, cos := range []bool{false, true} {
		name := "sin"
		if cos {
			name = "cos"
		}
		c := cos
		g.elementwise(ewKernel{name: name, inputs: []string{"x"}, unroll: 1,
			body: func(in, _ []reg.VecVirtual) reg.VecVirtual { return g.sincos(in[0], c) },
			out:  func(in []reg.VecVirtual) mask { return g.trigOut(in[0]) }})
	}
}

// nanMax returns device.BinaryF32's Max (max true) or Min of a and b.
func (g *gen) nanMax(a, b reg.VecVirtual, max bool) reg.VecVirtual {
	s := g.s
	var r reg.VecVirtual
	if max {
		r = s.maxps(a, b)
	} else {
		r = s.minps(a, b)
	}
	m := s.cmp(cmpUnord, a, a)
	if s.avx512 {
		// Merge a's NaN lanes into r, a temporary: the same bits as a
		// blend, and r is defined before the merge reads it (avo's
		// allocator keeps a blend's merge-masked destination live across
		// the whole kernel).
		s.emit(func() { VMOVUPS(a, m.r, r) })
		return r
	}
	return s.sel(m, a, r)
}

// binaryBody is the code of a two-input kernel on one vector of each.
type binaryBody struct {
	name string
	f    func(a, b reg.VecVirtual) reg.VecVirtual
}

// binaryBodies returns the two-input bodies.
func (g *gen) binaryBodies() []binaryBody {
	s := g.s
	return []binaryBody{
		{"add", func(a, b reg.VecVirtual) reg.VecVirtual { return s.add(a, b) }},
		{"sub", func(a, b reg.VecVirtual) reg.VecVirtual { return s.sub(a, b) }},
		{"mul", func(a, b reg.VecVirtual) reg.VecVirtual { return s.mul(a, b) }},
		{"div", func(a, b reg.VecVirtual) reg.VecVirtual { return s.div(a, b) }},
		{"maximum", func(a, b reg.VecVirtual) reg.VecVirtual { return g.nanMax(a, b, true) }},
		{"minimum", func(a, b reg.VecVirtual) reg.VecVirtual { return g.nanMax(a, b, false) }},
	}
}

// binaryKernels emits the two-input, scalar and fma kernels.
func (g *gen) binaryKernels() {
	s := g.s
	for _, op := range g.binaryBodies() {
		f := op.f
		g.modes(ewKernel{name: op.name, inputs: []string{"a", "b"}, unroll: 4,
			body: func(in, _ []reg.VecVirtual) reg.VecVirtual { return f(in[0], in[1]) }})
		g.modes(ewKernel{name: op.name + "Scalar", inputs: []string{"a"}, scalars: []string{"s"}, unroll: 4,
			body: func(in, sc []reg.VecVirtual) reg.VecVirtual { return f(in[0], sc[0]) }})
	}
	g.modes(ewKernel{name: "scalarSub", inputs: []string{"a"}, scalars: []string{"s"}, unroll: 4,
		body: func(in, sc []reg.VecVirtual) reg.VecVirtual { return s.sub(sc[0], in[0]) }})
	g.modes(ewKernel{name: "scalarDiv", inputs: []string{"a"}, scalars: []string{"s"}, unroll: 4,
		body: func(in, sc []reg.VecVirtual) reg.VecVirtual { return s.div(sc[0], in[0]) }})
	g.modes(ewKernel{name: "fma", inputs: []string{"a", "b", "c"}, unroll: 4,
		body: func(in, _ []reg.VecVirtual) reg.VecVirtual { return s.fma(in[0], in[1], in[2]) }})
	// STREAM triad for the bandwidth measurement: dst = b + q*c.
	g.elementwise(ewKernel{name: "triad", inputs: []string{"b", "c"}, scalars: []string{"q"}, unroll: 4,
		body: func(in, sc []reg.VecVirtual) reg.VecVirtual { return s.fma(in[1], sc[0], in[0]) }})
}

func (g *gen) generate() {
	g.binaryKernels()
	g.unaryKernels()
	g.reductions()
	g.conversions()
	g.widening()
	g.repeating()
	g.argFolding()
	g.compareKernels()
	g.selectKernels()
	g.fusedKernel()
}

// loadTails loads the partial vectors at element i of every input base
// under the tail mask tl.
func (g *gen) loadTails(tl tail, bases []reg.Register, i reg.Register) []reg.VecVirtual {
	var in []reg.VecVirtual
	for _, b := range bases {
		in = append(in, g.loadTail(tl, elem(b, i, 0)))
	}
	return in
}
