package device

import "fmt"

// Reg names a program register: the result of the instruction at that index.
type Reg int32

// Instr is one program instruction. Its result is register number equal to its
// position in Program.Code.
type Instr struct {
	Op    Op
	Type  DType   // result type: Float32, Int32 or Bool
	Args  [3]Reg  // register arguments, Arity() of them
	Index int     // OpInput: which input
	Imm   float64 // OpConst: the value
	Seed  uint64  // OpRandUniform, OpRandNormal: the stream
}

// Program is a straight-line elementwise computation in SSA form. Register i
// is the result of Code[i]; Outputs name the registers stored to the kernel's
// outputs, in order.
type Program struct {
	Code    []Instr
	Outputs []Reg
}

// String renders the program one instruction a line, for reports and errors.
func (p Program) String() string {
	s := ""
	for i, in := range p.Code {
		s += fmt.Sprintf("r%d = %s:%s", i, in.Op, in.Type)
		switch in.Op {
		case OpInput:
			s += fmt.Sprintf(" in%d", in.Index)
		case OpConst:
			s += fmt.Sprintf(" %g", in.Imm)
		case OpRandUniform, OpRandNormal:
			s += fmt.Sprintf(" seed=%d", in.Seed)
		}
		for a := 0; a < in.Op.Arity(); a++ {
			s += fmt.Sprintf(" r%d", in.Args[a])
		}
		s += "\n"
	}
	return s + fmt.Sprintf("out %v\n", p.Outputs)
}

// NumInputs returns one more than the largest input index the program loads.
func (p Program) NumInputs() int {
	n := 0
	for _, in := range p.Code {
		if in.Op == OpInput && in.Index+1 > n {
			n = in.Index + 1
		}
	}
	return n
}

// Builder appends instructions to a Program. Its methods return the register
// of the new instruction.
type Builder struct{ P Program }

func (b *Builder) emit(in Instr) Reg {
	b.P.Code = append(b.P.Code, in)
	return Reg(len(b.P.Code) - 1)
}

// TypeOf returns the result type of register r.
func (b *Builder) TypeOf(r Reg) DType { return b.P.Code[r].Type }

// Input loads input i, whose compute type is t.
func (b *Builder) Input(i int, t DType) Reg {
	return b.emit(Instr{Op: OpInput, Type: t.ComputeType(), Index: i})
}

// Const returns the constant v of type t.
func (b *Builder) Const(v float64, t DType) Reg { return b.emit(Instr{Op: OpConst, Type: t, Imm: v}) }

// Index returns the linear output position.
func (b *Builder) Index() Reg { return b.emit(Instr{Op: OpIndex, Type: Int32}) }

// Rand returns uniform [0,1) (normal=false) or standard normal numbers keyed
// by seed and the output position.
func (b *Builder) Rand(seed uint64, normal bool) Reg {
	op := OpRandUniform
	if normal {
		op = OpRandNormal
	}
	return b.emit(Instr{Op: op, Type: Float32, Seed: seed})
}

// Unary applies a one-argument op; the result type follows the op.
func (b *Builder) Unary(op Op, x Reg) Reg {
	return b.emit(Instr{Op: op, Type: op.Info().Types.Result(b.TypeOf(x)), Args: [3]Reg{x}})
}

// Cast converts x to type t; a no-op cast returns x. A Float64 register cast
// to Float16 or BFloat16 is rounded to t in float64 first, so that it rounds
// once (through float32 it would round twice).
func (b *Builder) Cast(x Reg, t DType) Reg {
	if b.TypeOf(x) == Float64 && (t == Float16 || t == BFloat16) {
		x = b.Round(x, t)
	}
	t = t.ComputeType()
	if b.TypeOf(x) == t {
		return x
	}
	return b.emit(Instr{Op: OpCast, Type: t, Args: [3]Reg{x}})
}

// Round rounds the Float32 or Float64 register x to storage type t as
// storing it in a buffer of type t would (Float16, BFloat16), wraps the
// Int32 register x to Uint8 or Int8 as such a store does (keeping the low
// byte, by floor division), and returns x for other types: a narrow
// intermediate computed inside a fused program then has the value it would
// have if it were stored and loaded again.
func (b *Builder) Round(x Reg, t DType) Reg {
	switch {
	case b.TypeOf(x) == Int32 && (t == Uint8 || t == Int8):
		bias := 0.0
		if t == Int8 {
			bias = 128
		}
		y := b.Binary(OpAdd, x, b.Const(bias, Int32))
		m := b.Const(256, Int32)
		low := b.Binary(OpSub, y, b.Binary(OpMul, b.Binary(OpDiv, y, m), m))
		return b.Binary(OpSub, low, b.Const(bias, Int32))
	case b.TypeOf(x) != Float32 && b.TypeOf(x) != Float64:
		return x
	case t == Float16:
		return b.Unary(OpRoundF16, x)
	case t == BFloat16:
		return b.Unary(OpRoundBF16, x)
	}
	return x
}

// Binary applies a two-argument op; comparisons yield Bool. A product with
// the constant one of the other operand's type returns that operand, which
// it equals exactly, so that scaling by one (SGD's 1 − dampening) leaves a
// chain of ops a chain for the backends that fuse chains.
func (b *Builder) Binary(op Op, x, y Reg) Reg {
	t := op.Info().Types.Result(b.TypeOf(x))
	if op == OpMul && b.TypeOf(x) == t && b.TypeOf(y) == t {
		switch {
		case b.isOne(y):
			return x
		case b.isOne(x):
			return y
		}
	}
	return b.emit(Instr{Op: op, Type: t, Args: [3]Reg{x, y}})
}

// isOne reports whether register r is the constant one.
func (b *Builder) isOne(r Reg) bool {
	in := &b.P.Code[r]
	return in.Op == OpConst && in.Imm == 1
}

// Where selects x where cond is true and y elsewhere.
func (b *Builder) Where(cond, x, y Reg) Reg {
	return b.emit(Instr{Op: OpWhere, Type: b.TypeOf(x), Args: [3]Reg{cond, x, y}})
}

// Fma returns x*y+z, of x's type (Float32 or Float64).
func (b *Builder) Fma(x, y, z Reg) Reg {
	return b.emit(Instr{Op: OpFma, Type: b.TypeOf(x), Args: [3]Reg{x, y, z}})
}

// Output appends r to the program's outputs.
func (b *Builder) Output(r Reg) { b.P.Outputs = append(b.P.Outputs, r) }

// Identity returns the program that stores input 0 of type t unchanged: the
// epilogue of a reduction or matmul that fuses nothing.
func Identity(t DType) Program {
	var b Builder
	b.Output(b.Input(0, t))
	return b.P
}
