package spv

import "math"

// builder accumulates what Splice adds to a base module: fresh ids, new
// global declarations (types and constants, deduplicated against the
// base's) and the words of the function bodies being emitted.
type builder struct {
	base    *Base
	bound   uint32
	glsl    uint32 // the GLSL.std.450 import (a new id when the base has none)
	globals []uint32
	decls   map[string]uint32 // declarations added by this builder
	code    []uint32          // the body being emitted
}

func newBuilder(b *Base) *builder {
	bl := &builder{base: b, bound: b.Bound(), glsl: b.glsl, decls: map[string]uint32{}}
	if bl.glsl == 0 {
		bl.glsl = bl.id()
	}
	return bl
}

// id returns a fresh result id.
func (b *builder) id() uint32 {
	id := b.bound
	b.bound++
	return id
}

// lookup returns the id of a declaration, or 0.
func (b *builder) lookup(k string) uint32 {
	if id, ok := b.base.decls[k]; ok {
		return id
	}
	return b.decls[k]
}

// typ returns the id of the type declared by op with operands (the result
// id excluded), declaring it when neither the base nor this builder has.
func (b *builder) typ(op uint16, operands ...uint32) uint32 {
	k := declKey(op, operands)
	if id := b.lookup(k); id != 0 {
		return id
	}
	id := b.id()
	b.globals = appendInst(b.globals, op, append([]uint32{id}, operands...)...)
	b.decls[k] = id
	return id
}

// constant returns the id of a 32-bit scalar constant of type t.
func (b *builder) constant(t, bits uint32) uint32 {
	k := declKey(opConstant, []uint32{t, bits})
	if id := b.lookup(k); id != 0 {
		return id
	}
	id := b.id()
	b.globals = appendInst(b.globals, opConstant, t, id, bits)
	b.decls[k] = id
	return id
}

// The scalar types.
func (b *builder) u32() uint32   { return b.typ(opTypeInt, 32, 0) }
func (b *builder) i32() uint32   { return b.typ(opTypeInt, 32, 1) }
func (b *builder) f32() uint32   { return b.typ(opTypeFloat, 32) }
func (b *builder) boolT() uint32 { return b.typ(opTypeBool) }

// wordPtr is the type of a pointer to a u32 word of a storage buffer.
func (b *builder) wordPtr() uint32 { return b.typ(opTypePointer, storageClassStorage, b.u32()) }

// Constants.
func (b *builder) cu(v uint32) uint32  { return b.constant(b.u32(), v) }
func (b *builder) ci(v int32) uint32   { return b.constant(b.i32(), uint32(v)) }
func (b *builder) cf(v float32) uint32 { return b.constant(b.f32(), math.Float32bits(v)) }

// val emits an instruction with a result type and a fresh result id.
func (b *builder) val(op uint16, t uint32, operands ...uint32) uint32 {
	id := b.id()
	b.code = append(b.code, uint32(3+len(operands))<<16|uint32(op), t, id)
	b.code = append(b.code, operands...)
	return id
}

// do emits an instruction without a result.
func (b *builder) do(op uint16, operands ...uint32) {
	b.code = appendInst(b.code, op, operands...)
}

// ext emits a GLSL.std.450 extended instruction.
func (b *builder) ext(t, inst uint32, args ...uint32) uint32 {
	return b.val(opExtInst, t, append([]uint32{b.glsl, inst}, args...)...)
}
