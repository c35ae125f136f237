package vec

import (
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

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

// Set holds the elementwise kernels of one Mode, by the contract's op
// identity. Each behaves as the package function of the op (the same
// results, length checks and aliasing rules); an op this package has no
// kernel for is nil. Sin and Cos have no prefetching or streaming forms and
// run as the package functions, as does every kernel at LevelGo.
type Set struct {
	// Unary[op] sets dst[i] = op(x[i]).
	Unary [device.NumOps]func(dst, x []float32)
	// Binary[op] sets dst[i] = op(a[i], b[i]).
	Binary [device.NumOps]func(dst, a, b []float32)
	// Scalar[op] sets dst[i] = op(a[i], s); ScalarLeft[op] sets
	// dst[i] = op(s, a[i]), for Sub and Div only (the others commute).
	Scalar, ScalarLeft [device.NumOps]func(dst, a []float32, s float32)
	// Fma sets dst[i] = a[i]*b[i] + c[i], rounded once.
	Fma func(dst, a, b, c []float32)
	// Copy sets dst[i] = x[i] (dst and x must not overlap).
	Copy func(dst, x []float32)
}

// Sets holds the kernels of each mode: Sets[Stream].Unary[device.OpTanh] is
// the streaming tanh.
var Sets = [numModes]Set{makeSet(Cached), makeSet(Prefetch), makeSet(Stream)}

// makeSet returns the kernels of mode m, which look the current level's
// kernel up at each call (SetLevel may change it).
func makeSet(m Mode) Set {
	var s Set
	for op := range device.NumOps {
		if goUnaryFns[op] != nil {
			s.Unary[op] = func(dst, x []float32) {
				if len(dst) != len(x) { // the name is built only on the panic path
					checkLen(kernelName(op, ""), "dst, x", len(dst), len(x))
				}
				current.modes[m.effective(dst)].unary[op](dst, x)
			}
		}
		if goBinaryFns[op] != nil {
			s.Binary[op] = func(dst, a, b []float32) {
				if len(a) != len(dst) || len(b) != len(dst) {
					checkLen(kernelName(op, ""), "dst, a, b", len(dst), len(a), len(b))
				}
				current.modes[m.effective(dst)].binary[op](dst, a, b)
			}
			s.Scalar[op] = func(dst, a []float32, x float32) {
				checkScalarLen(op, "scalar", len(dst), len(a))
				current.modes[m.effective(dst)].scalar[op](dst, a, x)
			}
		}
		if op == device.OpSub || op == device.OpDiv {
			s.ScalarLeft[op] = func(dst, a []float32, x float32) {
				checkScalarLen(op, "rscalar", len(dst), len(a))
				current.modes[m.effective(dst)].rscalar[op](dst, a, x)
			}
		}
	}
	s.Fma = func(dst, a, b, c []float32) {
		if len(a) != len(dst) || len(b) != len(dst) || len(c) != len(dst) {
			checkLen(kernelName(device.OpFma, ""), "dst, a, b, c", len(dst), len(a), len(b), len(c))
		}
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
