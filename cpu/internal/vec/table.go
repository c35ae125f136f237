package vec

// The kernel table: one per ISA level, filled by the pure-Go code and, on
// amd64, by the assembly stubs. The exported functions check lengths and call
// through the table of the current level.

// unaryOp names an elementwise one-argument kernel.
type unaryOp uint8

// The unary kernels.
const (
	opNeg unaryOp = iota
	opAbs
	opRelu
	opSqrt
	opRsqrt
	opRecip
	opExp
	opLog
	opTanh
	opSigmoid
	opErf
	opGeluErf
	opGeluTanh
	opSilu
	opSin
	opCos
	numUnary
)

var unaryNames = [numUnary]string{"Neg", "Abs", "Relu", "Sqrt", "Rsqrt", "Recip", "Exp", "Log", "Tanh",
	"Sigmoid", "Erf", "GeluErf", "GeluTanh", "Silu", "Sin", "Cos"}

// String returns the exported function's name.
func (o unaryOp) String() string { return unaryNames[o] }

// binaryOp names an elementwise two-argument kernel; the scalar forms use the
// same names with the second operand a scalar, plus the reversed forms.
type binaryOp uint8

// The binary kernels.
const (
	opAdd binaryOp = iota
	opSub
	opMul
	opDiv
	opMax
	opMin
	numBinary
	opScalarSub = numBinary     // s - a (scalar forms only)
	opScalarDiv = numBinary + 1 // s / a (scalar forms only)
	numScalar   = numBinary + 2
)

var binaryNames = [numScalar]string{"Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "ScalarSub", "ScalarDiv"}

// String returns the exported function's name.
func (o binaryOp) String() string { return binaryNames[o] }

// kernels is the set of kernels of one ISA level. Slices passed in have
// been checked to have equal lengths.
type kernels struct {
	unary  [numUnary]func(dst, x []float32)
	binary [numBinary]func(dst, a, b []float32)
	scalar [numScalar]func(dst, a []float32, s float32)
	fma    func(dst, a, b, c []float32)

	sum       func(x []float32) float64
	dot       func(a, b []float32) float64
	sumSqDiff func(x []float32, mean float32) float64
	max       func(x []float32) float32 // NaN-propagating; len(x) > 0
	min       func(x []float32) float32
	indexOf   func(x []float32, v float32) int          // first i with x[i] == v, or x[i] NaN when v is NaN; -1 if none
	expSub    func(dst, x []float32, m float32) float64 // dst = exp(x-m), returns the sum in float64
	sumExpSub func(x []float32, m float32) float64      // sum of exp(x-m)

	triad func(dst, b, c []float32, q float32) // dst = b + q*c (bandwidth measurement)
	copy  func(dst, x []float32)               // (bandwidth measurement)

	toHalf     func(dst []uint16, src []float32)
	fromHalf   func(dst []float32, src []uint16)
	toBFloat   func(dst []uint16, src []float32)
	fromBFloat func(dst []float32, src []uint16)

	cmp          [numCmp]func(dst []uint8, a, b []float32)
	cmpScalar    [numCmp]func(dst []uint8, a []float32, s float32)
	sel          func(dst []float32, c []uint8, a, b []float32)         // c ? a : b
	selScalar    func(dst []float32, c []uint8, a []float32, s float32) // c ? a : s
	selScalarInv func(dst []float32, c []uint8, a []float32, s float32) // c ? s : a

	// modes holds the elementwise kernels of each Mode; modes[Cached] are
	// the fields above (see setModes).
	modes [numModes]ewSet

	// The fused-program machines (see RunFused), or nil: fusedLight runs
	// programs without transcendentals, fused all programs of the opcodes
	// in fusedHas.
	fused, fusedLight func(code []uint64, lo, hi int)
	fusedHas          [numFused]bool
}

// ewSet is the elementwise kernels of one Mode.
type ewSet struct {
	unary  [numUnary]func(dst, x []float32)
	binary [numBinary]func(dst, a, b []float32)
	scalar [numScalar]func(dst, a []float32, s float32)
	fma    func(dst, a, b, c []float32)
	copy   func(dst, x []float32)
}

// setModes fills k.modes: the cached kernels from k's fields, then the
// prefetching and streaming ones from pf and nt, where each kernel that
// has no such form (a nil entry: Sin and Cos) is the cached one.
func (k *kernels) setModes(pf, nt ewSet) {
	cached := ewSet{unary: k.unary, binary: k.binary, scalar: k.scalar, fma: k.fma, copy: k.copy}
	k.modes = [numModes]ewSet{Cached: cached, Prefetch: pf, Stream: nt}
	for m := Prefetch; m < numModes; m++ {
		e := &k.modes[m]
		for op, f := range e.unary {
			if f == nil {
				e.unary[op] = cached.unary[op]
			}
		}
		for op, f := range e.binary {
			if f == nil {
				e.binary[op] = cached.binary[op]
			}
		}
		for op, f := range e.scalar {
			if f == nil {
				e.scalar[op] = cached.scalar[op]
			}
		}
		if e.fma == nil {
			e.fma = cached.fma
		}
		if e.copy == nil {
			e.copy = cached.copy
		}
	}
}
