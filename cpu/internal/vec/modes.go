package vec

import "unsafe"

// Mode is how an elementwise kernel moves its data. Every mode gives the
// same results, bit for bit; they differ in speed only.
type Mode uint8

// The modes.
const (
	// Cached: ordinary loads and stores (the package functions).
	Cached Mode = iota
	// Prefetch: the inputs are prefetched a little ahead of the loads, for
	// inputs streamed from memory into a destination that stays in cache
	// (the first step of a fused program evaluated chunk by chunk).
	Prefetch
	// Stream: the inputs are prefetched and whole vectors of dst are
	// written with non-temporal stores, which bypass the caches: no read
	// of dst's lines before they are overwritten and no eviction of other
	// data, but dst ends up in memory, not in cache. For destinations far
	// larger than the caches; on a destination that is read again soon,
	// Cached is faster. The kernel fences its stores before it returns.
	Stream
	numModes
)

var modeNames = [numModes]string{"cached", "prefetch", "stream"}

// String returns the mode's name.
func (m Mode) String() string { return modeNames[m] }

// Set holds the elementwise kernels of one Mode. Each field behaves as the
// package function of the same name (the same results, length checks and
// aliasing rules); Sin and Cos have no prefetching or streaming forms and
// run as the package functions, as does every kernel at LevelGo.
type Set struct {
	Neg, Abs, Relu, Sqrt, Rsqrt, Recip, Exp, Log, Tanh, Sigmoid, Erf, GeluErf, GeluTanh, Silu, Sin, Cos func(dst, x []float32)
	Add, Sub, Mul, Div, Maximum, Minimum                                                                func(dst, a, b []float32)
	AddScalar, SubScalar, MulScalar, DivScalar, MaximumScalar, MinimumScalar, ScalarSub, ScalarDiv      func(dst, a []float32, s float32)
	Fma                                                                                                 func(dst, a, b, c []float32)
	// Copy sets dst[i] = x[i] (dst and x must not overlap).
	Copy func(dst, x []float32)
}

// Sets holds the kernels of each mode: Sets[Stream].Tanh is the streaming
// tanh.
var Sets = [numModes]Set{makeSet(Cached), makeSet(Prefetch), makeSet(Stream)}

// makeSet returns the kernels of mode m, which look the current level's
// kernel up at each call (SetLevel may change it).
func makeSet(m Mode) Set {
	var s Set
	unary := [numUnary]*func(dst, x []float32){
		opNeg: &s.Neg, opAbs: &s.Abs, opRelu: &s.Relu, opSqrt: &s.Sqrt, opRsqrt: &s.Rsqrt, opRecip: &s.Recip,
		opExp: &s.Exp, opLog: &s.Log, opTanh: &s.Tanh, opSigmoid: &s.Sigmoid, opErf: &s.Erf,
		opGeluErf: &s.GeluErf, opGeluTanh: &s.GeluTanh, opSilu: &s.Silu, opSin: &s.Sin, opCos: &s.Cos,
	}
	for op, f := range unary {
		op := unaryOp(op)
		*f = func(dst, x []float32) {
			checkLen(op.String(), "dst, x", len(dst), len(x))
			current.modes[m.effective(dst)].unary[op](dst, x)
		}
	}
	binary := [numBinary]*func(dst, a, b []float32){
		opAdd: &s.Add, opSub: &s.Sub, opMul: &s.Mul, opDiv: &s.Div, opMax: &s.Maximum, opMin: &s.Minimum,
	}
	for op, f := range binary {
		op := binaryOp(op)
		*f = func(dst, a, b []float32) {
			checkLen(op.String(), "dst, a, b", len(dst), len(a), len(b))
			current.modes[m.effective(dst)].binary[op](dst, a, b)
		}
	}
	scalar := [numScalar]*func(dst, a []float32, s float32){
		opAdd: &s.AddScalar, opSub: &s.SubScalar, opMul: &s.MulScalar, opDiv: &s.DivScalar,
		opMax: &s.MaximumScalar, opMin: &s.MinimumScalar, opScalarSub: &s.ScalarSub, opScalarDiv: &s.ScalarDiv,
	}
	for op, f := range scalar {
		op := binaryOp(op)
		*f = func(dst, a []float32, s float32) {
			checkScalarLen(op, len(dst), len(a))
			current.modes[m.effective(dst)].scalar[op](dst, a, s)
		}
	}
	s.Fma = func(dst, a, b, c []float32) {
		checkLen("Fma", "dst, a, b, c", len(dst), len(a), len(b), len(c))
		current.modes[m.effective(dst)].fma(dst, a, b, c)
	}
	s.Copy = func(dst, x []float32) {
		checkLen("Copy", "dst, x", len(dst), len(x))
		current.modes[m.effective(dst)].copy(dst, x)
	}
	return s
}

// effective returns the mode a kernel writing dst runs in: m, except that
// streaming stores need dst aligned to its element size (always so for
// a float32 slice made by Go, not necessarily for one cast from bytes).
func (m Mode) effective(dst []float32) Mode {
	if m == Stream && uintptr(unsafe.Pointer(unsafe.SliceData(dst)))&3 != 0 {
		return Cached
	}
	return m
}
