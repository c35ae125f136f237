package spv

import (
	"fmt"

	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// Loads and stores of program views: element addressing and the word
// layout of each dtype (see package gpu, "Bindings").

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
	case device.Uint8: // zero-extended
		x, err := part(2, 0xff)
		if err != nil {
			return 0, err
		}
		return g.val(opBitcast, g.i32(), x), nil
	case device.Int8: // sign-extended: the byte to the top, an arithmetic shift back
		x, err := part(2, 0xff)
		if err != nil {
			return 0, err
		}
		top := g.val(opBitcast, g.i32(), g.val(opShiftLeftLogical, u, x, g.cu(24)))
		return g.val(opShiftRightArithmetic, g.i32(), top, g.cu(24)), nil
	}
	return 0, fmt.Errorf("view of dtype %s", v.DType)
}

// store writes x (of v's compute type) to view v's element at the hook's
// position; sub-word elements clear and set their bits with atomic and/or.
// Uint8 and Int8 keep the Int32 register's low byte (device.StoreInt32).
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
	case device.Uint8, device.Int8: // the low byte (device.StoreInt32)
		return part(2, 0xff, g.val(opBitwiseAnd, u, g.val(opBitcast, u, x), g.cu(0xff)))
	}
	return fmt.Errorf("view of dtype %s", v.DType)
}
