package vec

import (
	"fmt"
	"unsafe"
)

// The fused-program machine: a short elementwise program run over blocks of
// FusedBlock floats with the running value (the accumulator) held in
// registers, so that a chain of ops reads each input and writes each
// output once per block and passes through no buffer between ops.
//
// A program is a list of instructions, each an opcode and, for most, an
// operand: a stream (FusedBlock consecutive floats at base + the block's
// position: an input or an output) or a fixed block (a FusedConst, the
// same for every block), which a stream operand may also prefetch ahead
// (FusedProgram.Prefetch). Load sets the accumulator to the operand; Store
// and StoreNT write it to a stream (StoreNT with non-temporal stores,
// which need the stream's base aligned to 64 bytes); Add … Minimum set acc = acc op operand and their Rev
// forms acc = operand op acc; KeepPositive keeps acc where the operand is
// greater than zero (ordered) and KeepPositiveRev keeps the operand where
// acc is, +0 elsewhere (ReLU's gradient); the unary ops apply to the
// accumulator. Every
// op computes what the package function of the same name computes, bit for
// bit. End ends the block. The machine is generated for AVX-512 (four zmm
// accumulators) and AVX2 (eight ymm accumulators, without the
// transcendentals; see FusedHas). At LevelAVX512 a program without
// transcendentals runs on a wide machine (sixteen zmm accumulators, 256
// floats a block, so a quarter of the dispatches per float) and its last
// blocks, fewer than four, on the AVX2 one.

// FusedOp is an opcode of the fused-program machine (the constants are in
// fused_ops.go).
type FusedOp uint8

// String returns the opcode's name.
func (o FusedOp) String() string {
	if o < numFused {
		return fusedNames[o]
	}
	return fmt.Sprintf("FusedOp(%d)", uint8(o))
}

// FusedBlock is the number of floats the machine computes at a time.
const FusedBlock = 64

// fusedWideBlock is the number of floats the wide machine (AVX-512,
// sixteen accumulators, no transcendentals) computes at a time.
const fusedWideBlock = 256

// FusedConst is an operand that is the same for every block: copies of a
// value, as many as the widest machine's block.
type FusedConst [fusedWideBlock]float32

// FusedProgram is code for the machine. It holds the operands' addresses,
// not references: whoever runs it must keep the inputs, outputs and
// constants alive and in place until it is done, so they must live in
// heap-allocated or mapped memory, never in a variable that may sit on a
// goroutine stack (stacks move when they grow).
type FusedProgram struct {
	code  []uint64 // three words an instruction: opcode, address, mask (see fusedAVX512)
	heavy bool     // it uses an opcode the AVX2 machine lacks
}

// Reset empties the program, keeping its memory.
func (p *FusedProgram) Reset() { p.code, p.heavy = p.code[:0], false }

// Op appends an instruction without an operand: a unary op or End.
func (p *FusedProgram) Op(op FusedOp) {
	p.heavy = p.heavy || op < numFused && !fusedOnAVX2[op]
	p.code = append(p.code, uint64(op), 0, 0)
}

// Stream appends an instruction whose operand is the stream of floats
// starting at base.
func (p *FusedProgram) Stream(op FusedOp, base *float32) {
	p.code = append(p.code, uint64(op), uint64(uintptr(unsafe.Pointer(base))), ^uint64(0))
}

// Const appends an instruction whose operand is c.
func (p *FusedProgram) Const(op FusedOp, c *FusedConst) {
	p.code = append(p.code, uint64(op), uint64(uintptr(unsafe.Pointer(c))), 0)
}

// Prefetch marks the last instruction appended, which must have a stream
// operand, to prefetch that stream a little ahead of the block (for a
// stream read from memory: mark its first use).
func (p *FusedProgram) Prefetch() {
	if len(p.code) < 3 || p.code[len(p.code)-1] != ^uint64(0) {
		panic("vec.FusedProgram.Prefetch: the last instruction has no stream operand")
	}
	p.code[len(p.code)-3] |= 1 << fusedPrefetchBit
}

// fusedPrefetchBit is the opcode word's prefetch flag (see the generator).
const fusedPrefetchBit = 8

// CopyFrom makes p a copy of q in p's own memory: a worker's copy of a
// shared program, whose stream operands it may then Shift.
func (p *FusedProgram) CopyFrom(q *FusedProgram) {
	p.code, p.heavy = append(p.code[:0], q.code...), q.heavy
}

// Shift moves the stream operand of instruction k (the k-th appended,
// from 0) by floats elements, which may be negative: the block at position
// i then reads or writes what the block at i+floats did. Shifted by -L, a
// stream over a buffer holding one period of an operand that repeats every
// L floats serves positions [L, 2L) as it served [0, L).
func (p *FusedProgram) Shift(k, floats int) {
	if k < 0 || 3*k+2 >= len(p.code) || p.code[3*k+2] != ^uint64(0) {
		panic(fmt.Sprintf("vec.FusedProgram.Shift: instruction %d has no stream operand", k))
	}
	p.code[3*k+1] += uint64(int64(floats) * 4) // modulo 2^64: a negative shift subtracts
}

// Len returns the number of instructions.
func (p *FusedProgram) Len() int { return len(p.code) / 3 }

// FusedAvailable reports whether the machine runs at the current level.
func FusedAvailable() bool { return current.fused != nil }

// FusedHas reports whether the machine at the current level has opcode
// op: the AVX-512 machine has them all, the AVX2 one all but the
// transcendentals (Exp, Tanh, Sigmoid), and there is none at LevelGo.
func FusedHas(op FusedOp) bool { return op < numFused && current.fusedHas[op] }

// RunFused runs p (which must end with End) over the elements [lo, hi) of
// its streams; lo and hi must be multiples of FusedBlock. It panics when
// the machine is not available or the bounds are wrong.
func RunFused(p *FusedProgram, lo, hi int) {
	switch {
	case current.fused == nil:
		panic("vec.RunFused: no fused machine at this level (check FusedAvailable)")
	case lo%FusedBlock != 0 || hi%FusedBlock != 0 || lo > hi || lo < 0:
		panic(fmt.Sprintf("vec.RunFused: range [%d, %d) is not in whole blocks of %d", lo, hi, FusedBlock))
	case len(p.code) < 3 || p.code[len(p.code)-3] != uint64(FusedEnd):
		panic("vec.RunFused: the program does not end with End")
	}
	if p.heavy {
		current.fused(p.code, lo, hi)
		return
	}
	if current.fusedWide != nil && hi-lo >= fusedWideBlock {
		// The wide machine spreads each instruction's dispatch over four
		// times the floats; the last blocks, fewer than four, run on the
		// light one.
		m := lo + (hi-lo)/fusedWideBlock*fusedWideBlock
		current.fusedWide(p.code, lo, m)
		if lo = m; lo == hi {
			return
		}
	}
	current.fusedLight(p.code, lo, hi)
}
