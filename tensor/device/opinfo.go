package device

import "fmt"

// OpInfo is one row of the op table: what every layer needs to know about an
// op, written once.
type OpInfo struct {
	// Name is the op's one spelling: String, fusion reports, docs/ops.md.
	Name string
	// Arity is the number of register arguments the op reads.
	Arity int
	// Types is the op's type rule, which validation checks and Builder
	// follows.
	Types TypeRule
	// Cost says whether the op takes many instructions per element.
	Cost Cost
	// Float, Float2: the scalar definition of a Float32 unary or binary op,
	// which every backend must match within the op's documented error.
	Float  func(x float32) float32
	Float2 func(a, b float32) float32
	// Int, Int2: the scalar definition of the op on Int32 registers, for the
	// ops whose type rule is TypesNumeric.
	Int  func(x int32) int32
	Int2 func(a, b int32) int32
	// GPU names the function of shaders/ops.wgsl that generated GPU code
	// calls for Float32 arguments; "" when it uses an operator or builtin.
	GPU string
	// GPUInt names the ops.wgsl function for Int32 arguments; "" when
	// generated code uses an operator (wrapping add, sub and mul; max; min).
	GPUInt string
}

// TypeRule says which register types an op takes and yields.
type TypeRule uint8

// The type rules.
const (
	TypesInput   TypeRule = iota // OpInput: the input's compute type
	TypesConst                   // OpConst: any register type that holds Imm exactly
	TypesIndex                   // no arguments, Int32
	TypesRandom                  // no arguments, Float32
	TypesFloat                   // Float32 arguments, Float32 result
	TypesNumeric                 // Float32 or Int32 arguments of the result type
	TypesTest                    // a Float32 argument, Bool result (IsNaN)
	TypesLogic                   // Bool arguments, Bool result
	TypesCompare                 // two Float32 or two Int32 arguments, Bool result
	TypesSelect                  // Bool condition, two arguments of the result type
	TypesCast                    // any register type to any other
)

var typeRuleNames = [...]string{"input", "const", "int32", "float32", "float32", "float32 or int32",
	"float32 -> bool", "bool", "(float32 or int32) -> bool", "bool ? T : T", "any -> any"}

// String describes the rule in a few words, for docs/ops.md.
func (r TypeRule) String() string {
	if int(r) < len(typeRuleNames) {
		return typeRuleNames[r]
	}
	return fmt.Sprintf("types(%d)", uint8(r))
}

// Result returns the type an op of rule r yields on a first argument of
// type arg (for a mistyped argument, a type that validation then rejects).
func (r TypeRule) Result(arg DType) DType {
	switch r {
	case TypesIndex:
		return Int32
	case TypesRandom:
		return Float32
	case TypesTest, TypesLogic, TypesCompare:
		return Bool
	}
	return arg
}

// Cost classifies how much work an op is per element.
type Cost uint8

// The costs.
const (
	// Cheap: a few instructions (add, max, abs, a select).
	Cheap Cost = iota
	// Expensive: a transcendental, division, root or random number, which
	// makes a pass compute-bound rather than memory-bound.
	Expensive
)

// Info returns the op's row of the op table; an unknown op has the zero row
// with Arity -1.
func (o Op) Info() OpInfo {
	if o < NumOps {
		return opTable[o]
	}
	return OpInfo{Name: fmt.Sprintf("op(%d)", uint8(o)), Arity: -1}
}

// String returns the op's name.
func (o Op) String() string { return o.Info().Name }

// Arity returns the number of register arguments the op reads, or -1 for an
// unknown op.
func (o Op) Arity() int { return o.Info().Arity }

// IsComparison reports whether the op compares two values and yields Bool.
func (o Op) IsComparison() bool { return o < NumOps && opTable[o].Types == TypesCompare }

// IsArith reports whether the op is a float (or, for TypesNumeric, int32)
// arithmetic op of arity n whose scalar definition is in the table: what
// the CPU interpreter runs through its slice kernels.
func (o Op) IsArith(n int) bool {
	if o >= NumOps {
		return false
	}
	r := &opTable[o]
	return r.Arity == n && (r.Types == TypesFloat || r.Types == TypesNumeric)
}

// Ops returns every op, in order.
func Ops() []Op {
	ops := make([]Op, NumOps)
	for i := range ops {
		ops[i] = Op(i)
	}
	return ops
}
