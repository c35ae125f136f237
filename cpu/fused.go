package cpu

import (
	"math"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// Elementwise programs that form a chain (each instruction reads the
// result of the one before and otherwise only inputs read in place and
// constants) run on vec's fused-program machine (AVX-512, or AVX2 for
// chains without transcendentals) where the CPU has it: the
// whole chain is evaluated per block of 64 floats in registers, reading
// each input and writing each output once, with no pass through a scratch
// chunk per instruction (a memory-bound chain then runs at the speed of a
// single add). A selection Where(m > 0, v, +0), ReLU's gradient, whose test
// nothing else reads is one op of such a chain. The interpreter finishes
// the positions after the last whole block and runs every other program.

// useFused turns the machine off when false (tests and measurements).
var useFused = true

// fusedUnaryOps and fusedBinaryOps map device ops to the machine's (zero,
// FusedEnd, where it has none).
var fusedUnaryOps, fusedBinaryOps = func() (u, b [device.NumOps]vec.FusedOp) {
	for op, f := range map[device.Op]vec.FusedOp{
		device.OpNeg: vec.FusedNeg, device.OpAbs: vec.FusedAbs, device.OpRelu: vec.FusedRelu,
		device.OpSqrt: vec.FusedSqrt, device.OpRsqrt: vec.FusedRsqrt, device.OpRecip: vec.FusedRecip,
		device.OpExp: vec.FusedExp, device.OpTanh: vec.FusedTanh, device.OpSigmoid: vec.FusedSigmoid,
	} {
		u[op] = f
	}
	for op, f := range map[device.Op]vec.FusedOp{
		device.OpAdd: vec.FusedAdd, device.OpSub: vec.FusedSub, device.OpMul: vec.FusedMul,
		device.OpDiv: vec.FusedDiv, device.OpMax: vec.FusedMaximum, device.OpMin: vec.FusedMinimum,
	} {
		b[op] = f
	}
	return u, b
}()

// compileFused translates a finished plan into p.vm and sets p.fused when
// the program fits the machine: float32 throughout, float32 outputs, every
// input read in place, uniform or periodic (fused_periodic.go), a chain
// (see above) of at least two ops.
// Large plans (streamMinBytes) prefetch their inputs and stream their
// outputs.
func (p *plan) compileFused() {
	p.fused = false
	if !useFused || !vec.FusedAvailable() || p.n < vec.FusedBlock {
		return
	}
	for _, s := range p.sinks {
		if s.dt != device.Float32 {
			return
		}
	}
	p.vm.Reset()
	p.vmConst = grow(p.vmConst, len(p.code)) // not grown again: the code holds addresses into it
	clear(p.fetched)
	big := 4*p.n >= streamMinBytes
	p.prefetch = big
	p.planPeriods()
	acc := device.Reg(-1) // the register the accumulator holds
	ops := 0
	for i := range p.code {
		in := &p.code[i]
		if in.Op == device.OpInput || in.Op == device.OpConst {
			continue
		}
		if p.positiveTestOnly(device.Reg(i)) { // compiled into its selection, but an op of its own elsewhere
			ops++
			continue
		}
		if in.Type != device.Float32 || !p.fusedInstr(in, acc) {
			return
		}
		acc = device.Reg(i)
		ops++
		for k := range p.sinks {
			if p.sinks[k].reg == acc {
				p.fusedStore(k, big)
			}
		}
	}
	for k, s := range p.sinks { // outputs that are inputs or constants
		if op := p.code[s.reg].Op; op == device.OpInput || op == device.OpConst {
			if !p.fusedOperand(vec.FusedLoad, s.reg) {
				return
			}
			p.fusedStore(k, big)
		}
	}
	p.vm.Op(vec.FusedEnd)
	// A single op runs faster as its own kernel (no dispatch per block).
	p.fused = ops >= 2
}

// fusedInstr appends the code of instruction in, given that the
// accumulator holds register acc, and reports whether the machine can run
// it: an op it has, whose operands are acc, inputs read in place and
// constants.
func (p *plan) fusedInstr(in *device.Instr, acc device.Reg) bool {
	x, y := in.Args[0], in.Args[1]
	u, b := fusedUnaryOps[in.Op], fusedBinaryOps[in.Op]
	switch {
	case u != vec.FusedEnd && in.Op.Arity() == 1 && vec.FusedHas(u):
		if acc != x && !p.fusedOperand(vec.FusedLoad, x) {
			return false
		}
		p.vm.Op(u)
		return true
	case b != vec.FusedEnd && in.Op.Arity() == 2:
		switch {
		case acc == x && x != y:
			return p.fusedOperand(b, y)
		case acc == y && x != y:
			return p.fusedOperand(b+1, x) // the Rev form: operand op acc
		}
		return p.fusedOperand(vec.FusedLoad, x) && p.fusedOperand(b, y)
	case in.Op == device.OpWhere:
		return p.fusedKeepPositive(in, acc)
	}
	return false
}

// fusedKeepPositive appends Where(m > 0, v, +0), ReLU's gradient, when in
// is that selection of a float32 v by a test that positiveTestOnly let pass
// (the test compiles into the selection, KeepPositive or KeepPositiveRev).
func (p *plan) fusedKeepPositive(in *device.Instr, acc device.Reg) bool {
	test, v, zero := &p.code[in.Args[0]], in.Args[1], &p.code[in.Args[2]]
	if !p.positiveTestOnly(in.Args[0]) || zero.Op != device.OpConst || zero.Type != device.Float32 || zero.Imm != 0 || math.Signbit(zero.Imm) {
		return false
	}
	m := test.Args[0]
	switch {
	case m == v:
		return false
	case acc == v:
		return p.fusedOperand(vec.FusedKeepPositive, m)
	case acc == m:
		return p.fusedOperand(vec.FusedKeepPositiveRev, v)
	}
	return p.fusedOperand(vec.FusedLoad, v) && p.fusedOperand(vec.FusedKeepPositive, m)
}

// positiveTestOnly reports whether register r is m > 0 for a float32 m
// whose only reader is the condition of one selection: the machine then
// evaluates it inside that selection (fusedKeepPositive) and never on its
// own.
func (p *plan) positiveTestOnly(r device.Reg) bool {
	in := &p.code[r]
	if in.Op != device.OpGt || p.code[in.Args[0]].Type != device.Float32 {
		return false
	}
	if c := &p.code[in.Args[1]]; c.Op != device.OpConst || c.Type != device.Float32 || c.Imm != 0 {
		return false
	}
	last := int(p.lastUse[r])
	if last < 0 || last >= len(p.code) || p.code[last].Op != device.OpWhere {
		return false // an output, or not read by a selection last
	}
	for i := int(r) + 1; i <= last; i++ {
		use := &p.code[i]
		for a, x := range use.Args[:use.Op.Arity()] {
			if x == r && (i != last || a != 0) {
				return false // read other than as that selection's condition
			}
		}
	}
	return true
}

// fusedOperand appends op with register r as its operand, when r is an
// input read in place (a stream) or uniform (a constant block); it reports
// false for any other register.
func (p *plan) fusedOperand(op vec.FusedOp, r device.Reg) bool {
	in, ri := &p.code[r], &p.regs[r]
	var v float32
	switch {
	case in.Op == device.OpInput && ri.alias && p.srcs[in.Index].dt == device.Float32:
		s := &p.srcs[in.Index]
		p.vm.Stream(op, &s.f32[s.off])
		if p.prefetch && !p.fetched[r] { // the first read of a large input
			p.vm.Prefetch()
			p.fetched[r] = true
		}
		return true
	case in.Op == device.OpInput && p.srcs[in.Index].periodic:
		p.vm.Stream(op, &p.periodBuffer(in.Index)[0])
		p.periodic = append(p.periodic, p.vm.Len()-1)
		return true
	case in.Op == device.OpInput && ri.uniform && !p.srcs[in.Index].perRun && p.srcs[in.Index].dt == device.Float32:
		s := &p.srcs[in.Index]
		v = s.f32[s.off]
	case in.Op == device.OpConst && in.Type == device.Float32:
		v = float32(in.Imm)
	default:
		return false
	}
	c := &p.vmConst[r]
	for j := range c {
		c[j] = v
	}
	p.vm.Const(op, c)
	return true
}

// fusedStore appends the store of the accumulator to sink k: streaming
// when the plan is large and the sink's start is aligned to 64 bytes.
func (p *plan) fusedStore(k int, big bool) {
	s := &p.sinks[k]
	base := &s.f32[s.off]
	if big && uintptrOfF32(base)%64 == 0 {
		p.vm.Stream(vec.FusedStoreNT, base)
		return
	}
	p.vm.Stream(vec.FusedStore, base)
}
