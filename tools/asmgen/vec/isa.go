package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// isa abstracts the two vector instruction sets: the kernels are written
// once against its methods, which emit AVX2 (ymm, masks in vector registers)
// or AVX-512 (zmm, masks in opmask registers) code.
type isa struct {
	name   string // suffix of the generated functions: "AVX2" or "AVX512"
	lanes  int    // float32 lanes per vector
	avx512 bool
	rec    *[]func() // when set, instructions are recorded instead of emitted
	// hoisted maps a table's symbol to the register that holds its first
	// 64 bytes for the whole kernel being generated (lookup32 then needs no
	// load); elementwise clears it after each kernel.
	hoisted map[string]reg.VecVirtual
}

// hoist loads the first 64 bytes of table t into a register that
// lookup32 uses for the rest of the kernel.
func (s *isa) hoist(t Mem) {
	if s.hoisted == nil {
		s.hoisted = map[string]reg.VecVirtual{}
	}
	s.hoisted[t.Symbol.Name] = s.load(t)
}

// emit emits the instruction(s) f adds, or records f for interleave.
func (s *isa) emit(f func()) {
	if s.rec != nil {
		*s.rec = append(*s.rec, f)
		return
	}
	f()
}

// interleave runs each body in record mode and then emits their
// instructions alternately (body i lagging lagFrac of a body behind), so that independent vectors' dependency chains
// sit side by side in the instruction stream (the out-of-order core then
// overlaps them instead of waiting on one long chain). The bodies must not
// emit control flow.
func (s *isa) interleave(lagFrac float64, bodies ...func()) {
	recs := make([][]func(), len(bodies))
	for i, b := range bodies {
		s.rec = &recs[i]
		b()
	}
	s.rec = nil
	// Body i starts lag*i instructions after body 0: a lag lowers the peak
	// register pressure (the bodies' busiest stretches no longer coincide).
	lag := int(lagFrac * float64(len(recs[0])))
	for k := 0; ; k++ {
		done := true
		for i, r := range recs {
			j := k - lag*i
			if j < len(r) {
				done = false
			}
			if j >= 0 && j < len(r) {
				r[j]()
			}
		}
		if done {
			return
		}
	}
}

var (
	avx2   = &isa{name: "AVX2", lanes: 8}
	avx512 = &isa{name: "AVX512", lanes: 16, avx512: true}
)

// bytes returns the vector size in bytes.
func (s *isa) bytes() int { return 4 * s.lanes }

// vec returns a fresh vector register.
func (s *isa) vec() reg.VecVirtual {
	if s.avx512 {
		return ZMM()
	}
	return YMM()
}

// half returns a fresh register of half the vector width.
func (s *isa) half() reg.VecVirtual {
	if s.avx512 {
		return YMM()
	}
	return XMM()
}

// mask is the result of a comparison: a vector of lane masks (AVX2) or an
// opmask register (AVX-512).
type mask struct{ r reg.Register }

// Comparison predicates for VCMPPS (quiet forms).
const (
	cmpEQ    = 0x00 // equal, ordered
	cmpLT    = 0x11 // less, ordered
	cmpLE    = 0x12 // less or equal, ordered
	cmpUnord = 0x03 // either is NaN
	cmpNEQ   = 0x04 // not equal or unordered
	cmpNLE   = 0x16 // not less-or-equal: greater or unordered
	cmpEQU   = 0x08 // equal or unordered
	cmpGE    = 0x1d // greater or equal, ordered
	cmpGT    = 0x1e // greater, ordered
)

var constants = map[string]Mem{}

// cu returns a full-width read-only vector with every lane equal to bits.
func (s *isa) cu(bits uint32) Mem {
	name := fmt.Sprintf("c%d_%08x", s.bytes(), bits)
	if m, ok := constants[name]; ok {
		return m
	}
	m := GLOBL(name, RODATA|NOPTR)
	for i := 0; i < s.lanes; i++ {
		DATA(4*i, U32(bits))
	}
	constants[name] = m
	return m
}

// table32 returns a read-only table of 32 float32 values (128 bytes), for
// lookup32.
func (s *isa) table32(name string, vals []float32) Mem {
	if len(vals) != 32 {
		panic(fmt.Sprintf("asmgen: table %s has %d entries, want 32", name, len(vals)))
	}
	if m, ok := constants[name]; ok {
		return m
	}
	m := GLOBL(name, RODATA|NOPTR)
	for i, v := range vals {
		DATA(4*i, F32(v))
	}
	constants[name] = m
	return m
}

// lookup32 returns t[j] lane by lane for int32 lanes j in [0, 32): one
// two-table permute (VPERMI2PS: entries 0-15 in a register, 16-31 from
// memory). AVX-512 only.
func (s *isa) lookup32(t Mem, j reg.Register) reg.VecVirtual {
	if !s.avx512 {
		panic("asmgen: lookup32 needs AVX-512")
	}
	lo, ok := s.hoisted[t.Symbol.Name]
	if !ok {
		lo = s.load(t)
	}
	v := s.vec()
	s.emit(func() { VMOVUPS(j, v) })
	s.emit(func() { VPERMI2PS(t.Offset(64), lo, v) })
	return v
}

// c returns a full-width read-only vector of the float32 v.
func (s *isa) c(v float32) Mem { return s.cu(math.Float32bits(v)) }

// load returns a register holding op (a register, or memory).
func (s *isa) load(op Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VMOVUPS(op, v) })
	return v
}

// Arithmetic. In every method b may be memory; a must be a register.

func (s *isa) add(a reg.Register, b Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VADDPS(b, a, v) })
	return v
}
func (s *isa) sub(a reg.Register, b Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VSUBPS(b, a, v) })
	return v
}
func (s *isa) mul(a reg.Register, b Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VMULPS(b, a, v) })
	return v
}
func (s *isa) div(a reg.Register, b Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VDIVPS(b, a, v) })
	return v
}

func (s *isa) and(a reg.Register, b Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VANDPS(b, a, v) })
	return v
}
func (s *isa) or(a reg.Register, b Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VORPS(b, a, v) })
	return v
}
func (s *isa) xor(a reg.Register, b Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VXORPS(b, a, v) })
	return v
}

// andn returns ^a & b.
func (s *isa) andn(a reg.Register, b Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VANDNPS(b, a, v) })
	return v
}

// maxps returns a > b ? a : b (x86 semantics: b when either is NaN).
func (s *isa) maxps(a reg.Register, b Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VMAXPS(b, a, v) })
	return v
}

// minps returns a < b ? a : b (x86 semantics: b when either is NaN).
func (s *isa) minps(a reg.Register, b Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VMINPS(b, a, v) })
	return v
}

// fma returns a*b + c.
func (s *isa) fma(a reg.Register, b, c Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VMOVUPS(b, v) })
	s.emit(func() { VFMADD213PS(c, a, v) })
	return v
}

// horner returns c[0] + c[1] u + ... + c[n-1] u^(n-1).
func (s *isa) horner(c []float32, u reg.Register) reg.VecVirtual {
	p := s.load(s.c(c[len(c)-1]))
	for i := len(c) - 2; i >= 0; i-- {
		s.emit(func() { VFMADD213PS(s.c(c[i]), u, p) })
	}
	return p
}

// abs returns |a|; neg returns -a.
func (s *isa) abs(a reg.Register) reg.VecVirtual { return s.and(a, s.cu(0x7fffffff)) }
func (s *isa) neg(a reg.Register) reg.VecVirtual { return s.xor(a, s.cu(0x80000000)) }

// copysign returns |a| with the sign of b.
func (s *isa) copysign(a, b reg.Register) reg.VecVirtual {
	return s.or(s.abs(a), s.and(b, s.cu(0x80000000)))
}

// round returns a rounded to the nearest integer, ties to even.
func (s *isa) round(a reg.Register) reg.VecVirtual {
	v := s.vec()
	if s.avx512 {
		s.emit(func() { VRNDSCALEPS(U8(0), a, v) })
	} else {
		s.emit(func() { VROUNDPS(U8(0), a, v) })
	}
	return v
}

// cvtInt converts to int32 (rounding to nearest); cvtFloat converts int32 lanes.
func (s *isa) cvtInt(a reg.Register) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VCVTPS2DQ(a, v) })
	return v
}

// cvtTrunc converts to int32 rounding toward zero.
func (s *isa) cvtTrunc(a reg.Register) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VCVTTPS2DQ(a, v) })
	return v
}

func (s *isa) cvtFloat(a reg.Register) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VCVTDQ2PS(a, v) })
	return v
}

// Integer lane operations.

func (s *isa) addi(a reg.Register, b Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VPADDD(b, a, v) })
	return v
}
func (s *isa) subi(a reg.Register, b Op) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VPSUBD(b, a, v) })
	return v
}
func (s *isa) shl(a reg.Register, n int) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VPSLLD(U8(n), a, v) })
	return v
}
func (s *isa) shr(a reg.Register, n int) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VPSRLD(U8(n), a, v) })
	return v
}
func (s *isa) sar(a reg.Register, n int) reg.VecVirtual {
	v := s.vec()
	s.emit(func() { VPSRAD(U8(n), a, v) })
	return v
}

// cmp returns the lanes where a pred b.
func (s *isa) cmp(pred int, a reg.Register, b Op) mask {
	if s.avx512 {
		k := K()
		s.emit(func() { VCMPPS(U8(pred), b, a, k) })
		return mask{k}
	}
	v := s.vec()
	s.emit(func() { VCMPPS(U8(pred), b, a, v) })
	return mask{v}
}

// sel returns m ? t : f.
func (s *isa) sel(m mask, t Op, f reg.Register) reg.VecVirtual {
	v := s.vec()
	if s.avx512 {
		s.emit(func() { VBLENDMPS(t, f, m.r, v) })
	} else {
		s.emit(func() { VBLENDVPS(m.r, t, f, v) })
	}
	return v
}

// mand and mor combine masks.
func (s *isa) mand(a, b mask) mask {
	if s.avx512 {
		k := K()
		s.emit(func() { KANDW(b.r, a.r, k) })
		return mask{k}
	}
	return mask{s.and(a.r, b.r)}
}

func (s *isa) mor(a, b mask) mask {
	if s.avx512 {
		k := K()
		s.emit(func() { KORW(b.r, a.r, k) })
		return mask{k}
	}
	return mask{s.or(a.r, b.r)}
}

// maskBits moves one bit per lane of m into a general register.
func (s *isa) maskBits(m mask) reg.GPVirtual {
	g := GP32()
	if s.avx512 {
		s.emit(func() { KMOVW(m.r, g) })
	} else {
		s.emit(func() { VMOVMSKPS(m.r, g) })
	}
	return g
}

// pow2 returns 2^n for integer-valued n in [-126, 127].
func (s *isa) pow2(n reg.Register) reg.VecVirtual {
	if s.avx512 {
		return s.ldexp(s.load(s.c(1)), n)
	}
	return s.shl(s.addi(s.cvtInt(n), s.cu(127)), 23)
}

// orSign returns a with b's sign bit ORed in: copysign(a, b) for a >= +0.
func (s *isa) orSign(a, b reg.Register) reg.VecVirtual {
	if !s.avx512 {
		return s.or(a, s.and(b, s.cu(0x80000000)))
	}
	v := s.vec()
	s.emit(func() { VMOVUPS(a, v) })
	s.emit(func() { VPTERNLOGD(U8(0xf8), s.cu(0x80000000), b, v) }) // v | (b & sign)
	return v
}

// ldexp returns p * 2^n for integer-valued n in [-150, 128], rounding once.
func (s *isa) ldexp(p, n reg.Register) reg.VecVirtual {
	v := s.vec()
	if s.avx512 {
		s.emit(func() { VSCALEFPS(n, p, v) })
		return v
	}
	ni := s.cvtInt(n)
	e1 := s.sar(ni, 1)
	e2 := s.subi(ni, e1)
	f1 := s.shl(s.addi(e1, s.cu(127)), 23)
	f2 := s.shl(s.addi(e2, s.cu(127)), 23)
	return s.mul(s.mul(p, f1), f2)
}
