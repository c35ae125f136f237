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

// pos returns the id of the position in the whole kernel's space: the
// hook's position plus the block's position base (gpu.Hook.Base).
func (g *hookGen) pos() uint32 {
	return g.val(opIAdd, g.u32(), g.p, g.param(g.blkWord(g.h.Base)))
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
