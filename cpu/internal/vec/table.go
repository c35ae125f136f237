package vec

import "github.com/shaderflow/shaderflow/tensor/device"

// The kernel table: one per ISA level, filled by the pure-Go code and, on
// amd64, by the assembly stubs. The exported functions check lengths and call
// through the table of the current level.

// The elementwise tables are indexed by the contract's op identity
// (device.Op): unary[device.OpTanh] is the tanh kernel, nil for an op this
// package has no kernel for. scalar[op] computes op(a[i], s) and rscalar[op]
// op(s, a[i]), which only Sub and Div have (the others commute).

// kernelName is the name of op's kernel in panics and reports: the op's
// name, with "_scalar" for op(a[i], s) and "scalar_" before it for op(s, a[i]).
func kernelName(op device.Op, form string) string {
	switch form {
	case "scalar":
		return op.String() + "_scalar"
	case "rscalar":
		return "scalar_" + op.String()
	}
	return op.String()
}

// kernels is the set of kernels of one ISA level. Slices passed in have
// been checked to have equal lengths.
type kernels struct {
	unary           [device.NumOps]func(dst, x []float32)
	binary          [device.NumOps]func(dst, a, b []float32)
	scalar, rscalar [device.NumOps]func(dst, a []float32, s float32)
	fma             func(dst, a, b, c []float32)

	sum       func(x []float32) float64
	dot       func(a, b []float32) float64
	sumSqDiff func(x []float32, mean float32) float64
	max       func(x []float32) float32 // NaN-propagating; len(x) > 0
	min       func(x []float32) float32
	indexOf   func(x []float32, v float32) int          // first i with x[i] == v, or x[i] NaN when v is NaN; -1 if none
	expSub    func(dst, x []float32, m float32) float64 // dst = exp(x-m), returns the sum in float64
	sumExpSub func(x []float32, m float32) float64      // sum of exp(x-m)

	triad      func(dst, b, c []float32, q float32) // dst = b + q*c (bandwidth measurement)
	addWidened func(dst []float64, src []float32)   // dst += float64(src)
	repeat     func(dst, src []float32, n int)      // dst[i*n+j] = src[i]

	argMaxInto, argMinInto func(best []float32, idx []int32, x []float32, row int32) // see ArgMaxInto
	poolMaxInto            func(best []float32, idx []int32, x []float32, tap int32) // see PoolMaxInto
	copy                   func(dst, x []float32)                                    // (bandwidth measurement)

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
	// in fusedHas, and fusedWide programs without transcendentals over
	// blocks of fusedWideBlock floats.
	fused, fusedLight, fusedWide func(code []uint64, lo, hi int)
	fusedHas                     [numFused]bool
}

// ewSet is the elementwise kernels of one Mode.
type ewSet struct {
	unary           [device.NumOps]func(dst, x []float32)
	binary          [device.NumOps]func(dst, a, b []float32)
	scalar, rscalar [device.NumOps]func(dst, a []float32, s float32)
	fma             func(dst, a, b, c []float32)
	copy            func(dst, x []float32)
}

// setModes fills k.modes: the cached kernels from k's fields, then the
// prefetching and streaming ones from pf and nt, where each kernel that
// has no such form (a nil entry: Sin and Cos) is the cached one.
func (k *kernels) setModes(pf, nt ewSet) {
	cached := ewSet{unary: k.unary, binary: k.binary, scalar: k.scalar, rscalar: k.rscalar, fma: k.fma, copy: k.copy}
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
		for op, f := range e.rscalar {
			if f == nil {
				e.rscalar[op] = cached.rscalar[op]
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
