//go:build amd64 && !purego

package vec

import (
	"golang.org/x/sys/cpu"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// asmSet is one level's generated kernels (see sets_amd64.go): the
// elementwise ones in each Mode's form, the others one field per kernel
// base name.
type asmSet struct {
	ew                                                                           [numModes]asmEW
	triad                                                                        func(dst, b, c []float32, q float32)
	sin, cos                                                                     func(dst, x []float32) int
	sum                                                                          func(x []float32) float64
	dot                                                                          func(a, b []float32) float64
	sumSqDiff, sumExpSub                                                         func(x []float32, m float32) float64
	expSub                                                                       func(dst, x []float32, m float32) float64
	max, min                                                                     func(x []float32) float32
	indexOf                                                                      func(x []float32, v float32) int
	toHalf, toBFloat                                                             func(dst []uint16, src []float32)
	fromHalf, fromBFloat                                                         func(dst []float32, src []uint16)
	addWidened                                                                   func(dst []float64, src []float32)
	repeatRuns                                                                   func(dst []float32, src []float32, n int)
	argMaxInto, argMinInto, poolMaxInto                                          func(best []float32, idx []int32, x []float32, row int32)
	cmpEq, cmpNe, cmpLt, cmpLe, cmpGt, cmpGe                                     func(dst []uint8, a, b []float32)
	cmpEqScalar, cmpNeScalar, cmpLtScalar, cmpLeScalar, cmpGtScalar, cmpGeScalar func(dst []uint8, a []float32, s float32)
	sel                                                                          func(dst []float32, c []uint8, a, b []float32)
	selScalar, selScalarInv                                                      func(dst []float32, c []uint8, a []float32, s float32)
}

// asmEW is one Mode's form of the generated elementwise kernels.
type asmEW struct {
	add, sub, mul, div, maximum, minimum                                         func(dst, a, b []float32)
	addScalar, subScalar, mulScalar, divScalar, maximumScalar, minimumScalar     func(dst, a []float32, s float32)
	scalarSub, scalarDiv                                                         func(dst, a []float32, s float32)
	fma                                                                          func(dst, a, b, c []float32)
	neg, abs, relu, sqrt, rsqrt, recip, copy, exp, log, tanh, sigmoid, silu, erf func(dst, x []float32)
	geluErf, geluTanh, geluErfGrad, geluTanhGrad                                 func(dst, x []float32)
}

// set returns e as the op-indexed tables of an ewSet: the one place where
// a device.Op meets its generated SIMD kernel.
func (e *asmEW) set() ewSet {
	return ewSet{
		unary: [device.NumOps]func(dst, x []float32){
			device.OpNeg: e.neg, device.OpAbs: e.abs, device.OpRelu: e.relu, device.OpSqrt: e.sqrt,
			device.OpRsqrt: e.rsqrt, device.OpRecip: e.recip, device.OpExp: e.exp, device.OpLog: e.log,
			device.OpTanh: e.tanh, device.OpSigmoid: e.sigmoid, device.OpErf: e.erf,
			device.OpGeluErf: e.geluErf, device.OpGeluTanh: e.geluTanh, device.OpSilu: e.silu,
			device.OpGeluErfGrad: e.geluErfGrad, device.OpGeluTanhGrad: e.geluTanhGrad,
		},
		binary: [device.NumOps]func(dst, a, b []float32){
			device.OpAdd: e.add, device.OpSub: e.sub, device.OpMul: e.mul, device.OpDiv: e.div,
			device.OpMax: e.maximum, device.OpMin: e.minimum,
		},
		scalar: [device.NumOps]func(dst, a []float32, s float32){
			device.OpAdd: e.addScalar, device.OpSub: e.subScalar, device.OpMul: e.mulScalar,
			device.OpDiv: e.divScalar, device.OpMax: e.maximumScalar, device.OpMin: e.minimumScalar,
		},
		rscalar: [device.NumOps]func(dst, a []float32, s float32){device.OpSub: e.scalarSub, device.OpDiv: e.scalarDiv},
		fma:     e.fma, copy: e.copy,
	}
}

// floatsPerVector returns the float32 lanes of level l's vectors (AVX2 or
// AVX-512).
func floatsPerVector(l Level) int {
	if l == LevelAVX512 {
		return 16
	}
	return 8
}

// supported reports whether the CPU (and OS) can run level l's kernels.
func supported(l Level) bool {
	x := cpu.X86
	avx2 := x.HasAVX2 && x.HasFMA && x.HasBMI2 && x.HasF16C
	switch l {
	case LevelAVX2:
		return avx2
	case LevelAVX512:
		return avx2 && x.HasAVX512F && x.HasAVX512BW && x.HasAVX512DQ && x.HasAVX512VL
	}
	return false
}

// archKernels returns the assembly kernels of level l when the CPU supports it.
func archKernels(l Level) *kernels {
	if !supported(l) {
		return nil
	}
	a := &asmSets[l]
	cached := a.ew[Cached].set()
	cached.unary[device.OpSin], cached.unary[device.OpCos] = trig(a.sin, false), trig(a.cos, true)
	k := &kernels{
		unary:       cached.unary,
		binary:      cached.binary,
		scalar:      cached.scalar,
		rscalar:     cached.rscalar,
		fma:         cached.fma,
		sum:         a.sum,
		dot:         a.dot,
		sumSqDiff:   a.sumSqDiff,
		max:         a.max,
		min:         a.min,
		indexOf:     a.indexOf,
		expSub:      a.expSub,
		sumExpSub:   a.sumExpSub,
		toHalf:      convTail(a.toHalf, device.Float32ToFloat16),
		fromHalf:    convTail(a.fromHalf, device.Float16ToFloat32),
		toBFloat:    convTail(a.toBFloat, device.Float32ToBFloat16),
		fromBFloat:  convTail(a.fromBFloat, device.BFloat16ToFloat32),
		triad:       a.triad,
		addWidened:  widenTail(a.addWidened, floatsPerVector(l)),
		repeat:      repeatTail(a.repeatRuns, floatsPerVector(l)),
		argMaxInto:  a.argMaxInto,
		argMinInto:  a.argMinInto,
		poolMaxInto: a.poolMaxInto,
		copy:        cached.copy,
	}
	vv := [numCmp]func(dst []uint8, a, b []float32){a.cmpEq, a.cmpNe, a.cmpLt, a.cmpLe, a.cmpGt, a.cmpGe}
	vs := [numCmp]func(dst []uint8, a []float32, s float32){a.cmpEqScalar, a.cmpNeScalar, a.cmpLtScalar, a.cmpLeScalar, a.cmpGtScalar, a.cmpGeScalar}
	setSelects(k, vv, vs, a.sel, a.selScalar, a.selScalarInv)
	k.setModes(a.ew[Prefetch].set(), a.ew[Stream].set())
	// The AVX2 machine (eight ymm accumulators, 64 floats a block) needs half
	// the dispatches per float of the AVX-512 one and ran memory-bound chains
	// faster (docs/measurements.md), so AVX-512 runs it too for programs it
	// can run.
	k.fusedLight, k.fusedHas = fusedAVX2, fusedOnAVX2
	k.fused = fusedAVX2
	if l == LevelAVX512 {
		k.fused, k.fusedWide = fusedAVX512, fusedAVX512Wide
		for op := range k.fusedHas {
			k.fusedHas[op] = true
		}
	}
	return k
}
