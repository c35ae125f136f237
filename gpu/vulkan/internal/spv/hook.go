package spv

import (
	"fmt"

	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// hookGen emits the body of one hook function.
type hookGen struct {
	*builder
	h      gpu.Hook
	p      uint32 // the position parameter
	acc    uint32 // the accumulator parameter, 0 when none
	accF32 bool   // the accumulator is an f32 (else u32 bits)
	blk    uint32 // word offset of the program block
	regs   []uint32
	params uint32 // the params variable
}

// hookSig is what each hook's placeholder must look like: parameter count,
// whether it returns f32, and the accumulator's type (f32 or u32 bits).
var hookSig = map[string]struct {
	nparams   int
	returnF32 bool
	accF32    bool
}{
	gpu.HookElementwise:    {1, false, false},
	gpu.HookReducePrologue: {1, true, false},
	gpu.HookReduceEpilogue: {2, false, false},
	gpu.HookEpilogue:       {2, false, true},
}

// emitHook returns the words that replace the body of h's placeholder
// (from its first label through OpFunctionEnd).
func (b *builder) emitHook(h gpu.Hook) ([]uint32, error) {
	sig, ok := hookSig[h.Name]
	if !ok {
		return nil, fmt.Errorf("spv: unknown hook %q", h.Name)
	}
	fn := b.base.funcs[h.Name]
	if fn == nil {
		return nil, fmt.Errorf("spv: the module has no function %s", h.Name)
	}
	ret := b.typ(opTypeVoid)
	if sig.returnF32 {
		ret = b.f32()
	}
	if len(fn.params) != sig.nparams || fn.ret != ret || fn.paramTypes[0] != b.u32() {
		return nil, fmt.Errorf("spv: function %s does not have the hook's signature", h.Name)
	}
	g := &hookGen{builder: b, h: h, p: fn.params[0], accF32: sig.accF32, regs: make([]uint32, len(h.Program.Code))}
	if sig.nparams == 2 {
		g.acc = fn.params[1]
		want := b.u32()
		if sig.accF32 {
			want = b.f32()
		}
		if fn.paramTypes[1] != want {
			return nil, fmt.Errorf("spv: function %s does not have the hook's signature", h.Name)
		}
	}
	if g.params = b.base.vars[0]; g.params == 0 {
		return nil, fmt.Errorf("spv: the module has no params binding")
	}
	b.code = b.code[:0]
	b.do(opLabel, b.id())
	g.blk = g.param(b.cu(uint32(h.Header)))
	p := h.Program
	for i, in := range p.Code {
		v, err := g.instr(i, in)
		if err != nil {
			return nil, fmt.Errorf("spv: %s instruction %d (%s): %w", h.Name, i, in.Op, err)
		}
		g.regs[i] = v
	}
	for j := 0; j < h.NOut; j++ {
		if err := g.store(h.Views[h.NIn+j], g.regs[p.Outputs[j]]); err != nil {
			return nil, fmt.Errorf("spv: %s output %d: %w", h.Name, j, err)
		}
	}
	if sig.returnF32 {
		b.do(opReturnValue, g.regs[p.Outputs[0]])
	} else {
		b.do(opReturn)
	}
	b.do(opFunctionEnd)
	return append([]uint32(nil), b.code...), nil
}

// param loads params[idx] (idx a u32 id).
func (g *hookGen) param(idx uint32) uint32 {
	ptr := g.val(opAccessChain, g.wordPtr(), g.params, g.cu(0), idx)
	return g.val(opLoad, g.u32(), ptr)
}

// blkWord returns the id of blk + k.
func (g *hookGen) blkWord(k int) uint32 { return g.val(opIAdd, g.u32(), g.blk, g.cu(uint32(k))) }

// call calls a helper function of the module by name.
func (g *hookGen) call(name string, args ...uint32) (uint32, error) {
	f := g.base.funcs[name]
	if f == nil {
		return 0, fmt.Errorf("the module has no function %s", name)
	}
	if len(f.params) != len(args) {
		return 0, fmt.Errorf("function %s takes %d arguments, not %d", name, len(f.params), len(args))
	}
	return g.val(opFunctionCall, f.ret, append([]uint32{f.id}, args...)...), nil
}

// elem returns the element index of view v at the hook's position.
func (g *hookGen) elem(v gpu.HookView) (uint32, error) {
	d := g.blkWord(v.Desc)
	if v.Contiguous {
		off := g.param(g.val(opIAdd, g.u32(), d, g.cu(gpu.ViewOffsetWord)))
		return g.val(opIAdd, g.u32(), off, g.p), nil
	}
	return g.call(gpu.FnViewElem, d, g.blkWord(gpu.BlockShapeWord), g.cu(uint32(g.h.Rank)), g.p)
}

// word returns a pointer to word w of data binding n.
func (g *hookGen) word(n int, w uint32) (uint32, error) {
	v := g.base.vars[n]
	if v == 0 {
		return 0, fmt.Errorf("the module has no binding %d", n)
	}
	return g.val(opAccessChain, g.wordPtr(), v, g.cu(0), w), nil
}

// loadWord reads the word of a 32-bit element with a plain load (no other
// invocation writes it; plain accesses let lavapipe vectorize, where it runs
// atomics lane by lane). loadShared reads a word that packs several
// elements atomically: neighbours may be storing into it concurrently.
func (g *hookGen) loadWord(ptr uint32) uint32 { return g.val(opLoad, g.u32(), ptr) }
func (g *hookGen) loadShared(ptr uint32) uint32 {
	return g.val(opAtomicLoad, g.u32(), ptr, g.cu(scopeDevice), g.cu(semanticsRelaxed))
}

// atomic applies an atomic read-modify-write (device scope, relaxed, like
// WGSL's atomics) to a word shared with neighbouring elements.
func (g *hookGen) atomic(op uint16, ptr, v uint32) uint32 {
	return g.val(op, g.u32(), ptr, g.cu(scopeDevice), g.cu(semanticsRelaxed), v)
}

// subWord returns, for sub-word element e of a dtype packing 1<<logPer
// elements a word, the word index and the bit shift.
func (g *hookGen) subWord(e uint32, logPer uint32) (w, shift uint32) {
	u := g.u32()
	w = g.val(opShiftRightLogical, u, e, g.cu(logPer))
	bits := uint32(32 >> logPer)
	shift = g.val(opIMul, u, g.val(opBitwiseAnd, u, e, g.cu(1<<logPer-1)), g.cu(bits))
	return w, shift
}

// load returns view v's element at the hook's position in its compute type.
func (g *hookGen) load(v gpu.HookView) (uint32, error) {
	e, err := g.elem(v)
	if err != nil {
		return 0, err
	}
	u := g.u32()
	part := func(logPer, mask uint32) (uint32, error) { // the element's bits in the low bits
		w, s := g.subWord(e, logPer)
		ptr, err := g.word(v.Binding, w)
		if err != nil {
			return 0, err
		}
		return g.val(opBitwiseAnd, u, g.val(opShiftRightLogical, u, g.loadShared(ptr), s), g.cu(mask)), nil
	}
	switch v.DType {
	case device.Float32, device.Int32:
		ptr, err := g.word(v.Binding, e)
		if err != nil {
			return 0, err
		}
		return g.fromBits(v.DType, g.loadWord(ptr)), nil
	case device.Float16:
		h, err := part(1, 0xffff)
		if err != nil {
			return 0, err
		}
		return g.call(gpu.FnF16ToF32, h)
	case device.BFloat16:
		h, err := part(1, 0xffff)
		if err != nil {
			return 0, err
		}
		return g.val(opBitcast, g.f32(), g.val(opShiftLeftLogical, u, h, g.cu(16))), nil
	case device.Bool:
		x, err := part(2, 0xff)
		if err != nil {
			return 0, err
		}
		return g.val(opINotEqual, g.boolT(), x, g.cu(0)), nil
	}
	return 0, fmt.Errorf("view of dtype %s", v.DType)
}

// store writes x (of v's compute type) to view v's element at the hook's
// position; sub-word elements clear and set their bits with atomic and/or.
func (g *hookGen) store(v gpu.HookView, x uint32) error {
	e, err := g.elem(v)
	if err != nil {
		return err
	}
	u := g.u32()
	part := func(logPer, mask, bits uint32) error {
		w, s := g.subWord(e, logPer)
		ptr, err := g.word(v.Binding, w)
		if err != nil {
			return err
		}
		g.atomic(opAtomicAnd, ptr, g.val(opNot, u, g.val(opShiftLeftLogical, u, g.cu(mask), s)))
		g.atomic(opAtomicOr, ptr, g.val(opShiftLeftLogical, u, bits, s))
		return nil
	}
	switch v.DType {
	case device.Float32, device.Int32:
		ptr, err := g.word(v.Binding, e)
		if err != nil {
			return err
		}
		g.do(opStore, ptr, g.val(opBitcast, u, x)) // the whole word: no neighbour shares it
		return nil
	case device.Float16, device.BFloat16:
		name := gpu.FnF32ToF16
		if v.DType == device.BFloat16 {
			name = gpu.FnF32ToBF16
		}
		h, err := g.call(name, x)
		if err != nil {
			return err
		}
		return part(1, 0xffff, h)
	case device.Bool:
		return part(2, 0xff, g.val(opSelect, u, x, g.cu(1), g.cu(0)))
	}
	return fmt.Errorf("view of dtype %s", v.DType)
}

// fromBits converts compute-type bits (a u32 id) to a value of type t.
func (g *hookGen) fromBits(t device.DType, x uint32) uint32 {
	switch t {
	case device.Int32:
		return g.val(opBitcast, g.i32(), x)
	case device.Bool:
		return g.val(opINotEqual, g.boolT(), x, g.cu(0))
	}
	return g.val(opBitcast, g.f32(), x)
}

// regType is the SPIR-V type of a register type.
func (g *hookGen) regType(t device.DType) uint32 {
	switch t {
	case device.Int32:
		return g.i32()
	case device.Bool:
		return g.boolT()
	}
	return g.f32()
}
