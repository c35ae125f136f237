package main

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The fused-program kernel: an accumulator machine that runs a short
// elementwise program over blocks of fusedBlock floats with the running
// value held in registers, so that a chain of N ops reads its inputs and
// writes its outputs once per block, with no pass through a scratch buffer
// per op (see cpu/internal/vec/fused.go for the instruction format).

// fusedBlock is the number of floats per block: four zmm or eight ymm
// accumulators.
const fusedBlock = 64

// fusedUnary lists the one-input ops the machine runs. The other
// transcendentals (log, silu, erf and the GELUs) are left out: with them
// the kernel overflows avo's register allocator (each handler works on four
// accumulators, and the handlers share one function). Programs using them
// run on the chunk interpreter.
var fusedUnary = map[string]bool{
	"neg": true, "abs": true, "relu": true, "sqrt": true, "rsqrt": true, "recip": true,
	"exp": true, "tanh": true, "sigmoid": true,
}

// fusedOp is one opcode of the machine: its name (the Go constant is
// "Fused" + name) and the code that runs it on the accumulators, given
// the operand address (nil for ops without one).
type fusedOp struct {
	name string
	emit func(acc []reg.VecVirtual, addr reg.Register)
	// heavy marks the transcendentals, which only the AVX-512 machine has:
	// AVX2's sixteen registers hold the eight accumulators and too little
	// else.
	heavy bool
}

// fusedOps returns the machine's opcodes in opcode order.
func (g *gen) fusedOps() []fusedOp {
	s := g.s
	operand := func(addr reg.Register, k int) reg.VecVirtual { return s.load(Mem{Base: addr, Disp: k * s.bytes()}) }
	ops := []fusedOp{
		{name: "End"}, // handled by the dispatcher
		{name: "Load", emit: func(acc []reg.VecVirtual, addr reg.Register) {
			for k := range acc {
				VMOVUPS(Mem{Base: addr, Disp: k * s.bytes()}, acc[k])
			}
		}},
		{name: "Store", emit: func(acc []reg.VecVirtual, addr reg.Register) {
			for k := range acc {
				VMOVUPS(acc[k], Mem{Base: addr, Disp: k * s.bytes()})
			}
		}},
		{name: "StoreNT", emit: func(acc []reg.VecVirtual, addr reg.Register) {
			for k := range acc {
				VMOVNTPS(acc[k], Mem{Base: addr, Disp: k * s.bytes()})
			}
		}},
	}
	for _, b := range g.binaryBodies() {
		f := b.f
		ops = append(ops,
			fusedOp{name: b.name, emit: func(acc []reg.VecVirtual, addr reg.Register) {
				for k := range acc {
					VMOVUPS(f(acc[k], operand(addr, k)), acc[k])
				}
			}},
			fusedOp{name: b.name + "Rev", emit: func(acc []reg.VecVirtual, addr reg.Register) {
				for k := range acc {
					VMOVUPS(f(operand(addr, k), acc[k]), acc[k])
				}
			}})
	}
	// ReLU's gradient, Where(m > 0, v, +0): KeepPositive keeps the
	// accumulator (v) where the operand (m) is greater than zero, ordered,
	// and KeepPositiveRev keeps the operand where the accumulator is; other
	// lanes become +0. Written with one scratch register a lane group: the
	// handlers share the kernel's register allocation.
	ops = append(ops,
		fusedOp{name: "KeepPositive", emit: func(acc []reg.VecVirtual, addr reg.Register) {
			for k := range acc {
				g.keepPositive(Mem{Base: addr, Disp: k * s.bytes()}, acc[k], acc[k])
			}
		}},
		fusedOp{name: "KeepPositiveRev", emit: func(acc []reg.VecVirtual, addr reg.Register) {
			for k := range acc {
				g.keepPositive(acc[k], Mem{Base: addr, Disp: k * s.bytes()}, acc[k])
			}
		}})
	for i, u := range g.unaryBodies() {
		if !fusedUnary[u.name] {
			continue
		}
		f := u.f
		emit := func(acc []reg.VecVirtual, _ reg.Register) {
			for k := range acc {
				VMOVUPS(f(acc[k]), acc[k])
			}
		}
		if u.name == "relu" { // one register of zeros serves every accumulator
			emit = func(acc []reg.VecVirtual, _ reg.Register) {
				zero := s.zero()
				for k := range acc {
					VMOVUPS(s.relu(acc[k], zero), acc[k])
				}
			}
		}
		ops = append(ops, fusedOp{name: u.name, heavy: i >= len(g.simpleUnary())-1, emit: emit})
	}
	return ops
}

// keepPositive emits dst = m > 0 ? v : +0 for one vector, m and v each a
// register or memory, comparing as 0 < m, ordered, so a NaN m gives +0.
func (g *gen) keepPositive(m, v Op, dst reg.VecVirtual) {
	zero := g.s.vec()
	VXORPS(zero, zero, zero)
	if g.s.avx512 {
		k := K()
		VCMPPS(U8(cmpLT), m, zero, k)
		VMOVUPS_Z(v, k, dst)
		return
	}
	VCMPPS(U8(cmpLT), m, zero, zero) // zero now holds the mask
	VANDPS(v, zero, dst)
}

// fusedPrefetchBit is the bit of an instruction's opcode word that asks
// for its operand to be prefetched prefetchAhead bytes ahead.
const fusedPrefetchBit = 8

// fusedWideAccs is the number of zmm accumulators of the wide AVX-512
// machine: 256 floats a block, so that a program's dispatch overhead is
// spread over four times the floats of the 64-float machines.
const fusedWideAccs = 16

// fusedKernel emits fusedAVX512 or fusedAVX2(code []uint64, lo, hi int): for each
// block of 64 floats from lo to hi (multiples of 64), run code's
// instructions (three words each: opcode, with bit fusedPrefetchBit set to
// prefetch the operand; address; mask: the operand is at address + (byte
// offset of the block & mask)) until End, then fence the streaming stores.
// At AVX-512 it also emits fusedAVX512Wide, the same machine over blocks of
// 256 floats with sixteen accumulators and without the transcendentals
// (hi - lo a multiple of 256; a constant operand then spans 256 floats).
func (g *gen) fusedKernel() {
	g.fusedMachine("fused"+g.s.name, fusedBlock/g.s.lanes, !g.s.avx512)
	if g.s.avx512 {
		g.fusedMachine("fused"+g.s.name+"Wide", fusedWideAccs, true)
	}
}

// fusedMachine emits one fused machine called name with nacc accumulators;
// light machines leave out the transcendentals (their handlers end the
// block: vec.FusedHas keeps such programs away from them).
func (g *gen) fusedMachine(name string, nacc int, light bool) {
	ops := g.fusedOps()
	block := nacc * g.s.bytes() // bytes a block
	TEXT(name, NOSPLIT, "func(code []uint64, lo, hi int)")
	Pragma("noescape")
	code := Load(Param("code").Base(), GP64())
	i := Load(Param("lo"), GP64()) // byte offset of the block
	SHLQ(U8(2), i)
	end := Load(Param("hi"), GP64())
	SHLQ(U8(2), end)
	acc := make([]reg.VecVirtual, nacc)
	for k := range acc {
		acc[k] = g.s.zero() // defined before the loop for the register allocator
	}
	pc, op, addr := GP64(), GP64(), GP64()
	Label("block")
	CMPQ(i, end)
	JAE(LabelRef("done"))
	MOVQ(code, pc)
	Label("next")
	MOVQ(Mem{Base: pc}, op)
	MOVQ(Mem{Base: pc, Disp: 16}, addr)
	ANDQ(i, addr)
	ADDQ(Mem{Base: pc, Disp: 8}, addr)
	ADDQ(U8(24), pc)
	BTRQ(U8(fusedPrefetchBit), op) // CF: the operand is to be prefetched
	JCC(LabelRef("dispatch"))
	for k := 0; k < block; k += 64 {
		PREFETCHT0(Mem{Base: addr, Disp: prefetchAhead + k})
	}
	Label("dispatch")
	TESTQ(op, op)
	JE(LabelRef("op_End"))
	dispatch(ops, op, 1, len(ops)-1)
	Label("op_End")
	ADDQ(U32(block), i)
	JMP(LabelRef("block"))
	for _, o := range ops[1:] {
		Label("op_" + o.name)
		if o.heavy && light { // never run here (vec.FusedHas)
			JMP(LabelRef("op_End"))
			continue
		}
		o.emit(acc, addr)
		JMP(LabelRef("next"))
	}
	Label("done")
	SFENCE()
	VZEROUPPER()
	RET()
}

// dispatch emits a binary search over opcodes lo..hi of ops that jumps to
// the handler of op (every block runs the same sequence, so the branches
// are predicted).
func dispatch(ops []fusedOp, op reg.Register, lo, hi int) {
	if lo == hi {
		JMP(LabelRef("op_" + ops[lo].name))
		return
	}
	mid := (lo + hi) / 2
	right := fmt.Sprintf("bs_%d_%d", mid+1, hi)
	CMPQ(op, U32(mid))
	JA(LabelRef(right))
	dispatch(ops, op, lo, mid)
	Label(right)
	dispatch(ops, op, mid+1, hi)
}

// writeFusedOps writes the Go constants of the fused machine's opcodes.
func writeFusedOps(path string, ops []fusedOp) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by tools/asmgen/vec. DO NOT EDIT.\n\npackage vec\n\n")
	fmt.Fprintf(&b, "// The opcodes of the fused-program machine (see FusedOp).\nconst (\n")
	for i, o := range ops {
		name := strings.ToUpper(o.name[:1]) + o.name[1:]
		if i == 0 {
			fmt.Fprintf(&b, "Fused%s FusedOp = iota\n", name)
		} else {
			fmt.Fprintf(&b, "Fused%s\n", name)
		}
	}
	fmt.Fprintf(&b, "numFused\n)\n\nvar fusedNames = [numFused]string{")
	for _, o := range ops {
		fmt.Fprintf(&b, "%q, ", strings.ToUpper(o.name[:1])+o.name[1:])
	}
	fmt.Fprintf(&b, "}\n\n// fusedOnAVX2 says which opcodes the AVX2 machine has.\nvar fusedOnAVX2 = [numFused]bool{")
	for _, o := range ops {
		fmt.Fprintf(&b, "%v, ", !o.heavy)
	}
	fmt.Fprintf(&b, "}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return err
	}
	return os.WriteFile(path, src, 0o644)
}
