//go:build amd64 && !purego

package vec

import (
	"golang.org/x/sys/cpu"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// asmSet is one level's generated kernels (see sets_amd64.go), one field
// per kernel base name.
type asmSet struct {
	add, sub, mul, div, maximum, minimum                                         func(dst, a, b []float32)
	addScalar, subScalar, mulScalar, divScalar, maximumScalar, minimumScalar     func(dst, a []float32, s float32)
	scalarSub, scalarDiv                                                         func(dst, a []float32, s float32)
	fma                                                                          func(dst, a, b, c []float32)
	triad                                                                        func(dst, b, c []float32, q float32)
	neg, abs, relu, sqrt, rsqrt, recip, copy, exp, log, tanh, sigmoid, silu, erf func(dst, x []float32)
	geluErf, geluTanh                                                            func(dst, x []float32)
	sin, cos                                                                     func(dst, x []float32) int
	sum                                                                          func(x []float32) float64
	dot                                                                          func(a, b []float32) float64
	sumSqDiff, sumExpSub                                                         func(x []float32, m float32) float64
	expSub                                                                       func(dst, x []float32, m float32) float64
	max, min                                                                     func(x []float32) float32
	indexOf                                                                      func(x []float32, v float32) int
	toHalf, toBFloat                                                             func(dst []uint16, src []float32)
	fromHalf, fromBFloat                                                         func(dst []float32, src []uint16)
	cmpEq, cmpNe, cmpLt, cmpLe, cmpGt, cmpGe                                     func(dst []uint8, a, b []float32)
	cmpEqScalar, cmpNeScalar, cmpLtScalar, cmpLeScalar, cmpGtScalar, cmpGeScalar func(dst []uint8, a []float32, s float32)
	sel                                                                          func(dst []float32, c []uint8, a, b []float32)
	selScalar, selScalarInv                                                      func(dst []float32, c []uint8, a []float32, s float32)

	// The prefetching (PF) and streaming (NT) forms of the elementwise
	// kernels (see Mode).
	negPF, absPF, reluPF, sqrtPF, rsqrtPF, recipPF, copyPF, expPF, logPF, tanhPF, sigmoidPF, siluPF, erfPF func(dst, x []float32)
	negNT, absNT, reluNT, sqrtNT, rsqrtNT, recipNT, copyNT, expNT, logNT, tanhNT, sigmoidNT, siluNT, erfNT func(dst, x []float32)
	geluErfPF, geluTanhPF, geluErfNT, geluTanhNT                                                           func(dst, x []float32)
	addPF, subPF, mulPF, divPF, maximumPF, minimumPF                                                       func(dst, a, b []float32)
	addNT, subNT, mulNT, divNT, maximumNT, minimumNT                                                       func(dst, a, b []float32)
	addScalarPF, subScalarPF, mulScalarPF, divScalarPF, maximumScalarPF, minimumScalarPF                   func(dst, a []float32, s float32)
	addScalarNT, subScalarNT, mulScalarNT, divScalarNT, maximumScalarNT, minimumScalarNT                   func(dst, a []float32, s float32)
	scalarSubPF, scalarDivPF, scalarSubNT, scalarDivNT                                                     func(dst, a []float32, s float32)
	fmaPF, fmaNT                                                                                           func(dst, a, b, c []float32)
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
	k := &kernels{
		unary: [numUnary]func(dst, x []float32){
			opNeg: a.neg, opAbs: a.abs, opRelu: a.relu, opSqrt: a.sqrt, opRsqrt: a.rsqrt, opRecip: a.recip,
			opExp: a.exp, opLog: a.log, opTanh: a.tanh, opSigmoid: a.sigmoid, opErf: a.erf,
			opGeluErf: a.geluErf, opGeluTanh: a.geluTanh, opSilu: a.silu,
			opSin: trig(a.sin, false), opCos: trig(a.cos, true),
		},
		binary: [numBinary]func(dst, a, b []float32){
			opAdd: a.add, opSub: a.sub, opMul: a.mul, opDiv: a.div, opMax: a.maximum, opMin: a.minimum,
		},
		scalar: [numScalar]func(dst, a []float32, s float32){
			opAdd: a.addScalar, opSub: a.subScalar, opMul: a.mulScalar, opDiv: a.divScalar,
			opMax: a.maximumScalar, opMin: a.minimumScalar, opScalarSub: a.scalarSub, opScalarDiv: a.scalarDiv,
		},
		fma:        a.fma,
		sum:        a.sum,
		dot:        a.dot,
		sumSqDiff:  a.sumSqDiff,
		max:        a.max,
		min:        a.min,
		indexOf:    a.indexOf,
		expSub:     a.expSub,
		sumExpSub:  a.sumExpSub,
		toHalf:     convTail(a.toHalf, device.Float32ToFloat16),
		fromHalf:   convTail(a.fromHalf, device.Float16ToFloat32),
		toBFloat:   convTail(a.toBFloat, device.Float32ToBFloat16),
		fromBFloat: convTail(a.fromBFloat, device.BFloat16ToFloat32),
		triad:      a.triad,
		copy:       a.copy,
	}
	vv := [numCmp]func(dst []uint8, a, b []float32){a.cmpEq, a.cmpNe, a.cmpLt, a.cmpLe, a.cmpGt, a.cmpGe}
	vs := [numCmp]func(dst []uint8, a []float32, s float32){a.cmpEqScalar, a.cmpNeScalar, a.cmpLtScalar, a.cmpLeScalar, a.cmpGtScalar, a.cmpGeScalar}
	for op := range numCmp {
		f, fs := vv[op], vs[op]
		k.cmp[op] = func(dst []uint8, x, y []float32) { f(dst, x, y); goCmp(op, dst, x, y, len(x)&^15) }
		k.cmpScalar[op] = func(dst []uint8, x []float32, s float32) {
			fs(dst, x, s)
			for i := len(x) &^ 15; i < len(x); i++ {
				dst[i] = b2u8(op.holds(x[i], s))
			}
		}
	}
	k.sel = func(dst []float32, c []uint8, x, y []float32) { a.sel(dst, c, x, y); goSel(dst, c, x, y, len(x)&^15) }
	k.selScalar = func(dst []float32, c []uint8, x []float32, s float32) {
		a.selScalar(dst, c, x, s)
		goSelScalar(dst, c, x, s, false, len(x)&^15)
	}
	k.selScalarInv = func(dst []float32, c []uint8, x []float32, s float32) {
		a.selScalarInv(dst, c, x, s)
		goSelScalar(dst, c, x, s, true, len(x)&^15)
	}
	k.setModes(
		ewSet{
			unary: [numUnary]func(dst, x []float32){
				opNeg: a.negPF, opAbs: a.absPF, opRelu: a.reluPF, opSqrt: a.sqrtPF, opRsqrt: a.rsqrtPF, opRecip: a.recipPF,
				opExp: a.expPF, opLog: a.logPF, opTanh: a.tanhPF, opSigmoid: a.sigmoidPF, opErf: a.erfPF,
				opGeluErf: a.geluErfPF, opGeluTanh: a.geluTanhPF, opSilu: a.siluPF,
			},
			binary: [numBinary]func(dst, a, b []float32){
				opAdd: a.addPF, opSub: a.subPF, opMul: a.mulPF, opDiv: a.divPF, opMax: a.maximumPF, opMin: a.minimumPF,
			},
			scalar: [numScalar]func(dst, a []float32, s float32){
				opAdd: a.addScalarPF, opSub: a.subScalarPF, opMul: a.mulScalarPF, opDiv: a.divScalarPF,
				opMax: a.maximumScalarPF, opMin: a.minimumScalarPF, opScalarSub: a.scalarSubPF, opScalarDiv: a.scalarDivPF,
			},
			fma: a.fmaPF, copy: a.copyPF,
		},
		ewSet{
			unary: [numUnary]func(dst, x []float32){
				opNeg: a.negNT, opAbs: a.absNT, opRelu: a.reluNT, opSqrt: a.sqrtNT, opRsqrt: a.rsqrtNT, opRecip: a.recipNT,
				opExp: a.expNT, opLog: a.logNT, opTanh: a.tanhNT, opSigmoid: a.sigmoidNT, opErf: a.erfNT,
				opGeluErf: a.geluErfNT, opGeluTanh: a.geluTanhNT, opSilu: a.siluNT,
			},
			binary: [numBinary]func(dst, a, b []float32){
				opAdd: a.addNT, opSub: a.subNT, opMul: a.mulNT, opDiv: a.divNT, opMax: a.maximumNT, opMin: a.minimumNT,
			},
			scalar: [numScalar]func(dst, a []float32, s float32){
				opAdd: a.addScalarNT, opSub: a.subScalarNT, opMul: a.mulScalarNT, opDiv: a.divScalarNT,
				opMax: a.maximumScalarNT, opMin: a.minimumScalarNT, opScalarSub: a.scalarSubNT, opScalarDiv: a.scalarDivNT,
			},
			fma: a.fmaNT, copy: a.copyNT,
		})
	// The AVX2 machine (eight ymm accumulators, 64 floats a block) ran a
	// memory-bound chain of four ops 6% faster than the AVX-512 one (four
	// zmm accumulators: twice the dispatches per float) on the development
	// machine, so AVX-512 runs it too for programs it can run.
	k.fusedLight, k.fusedHas = fusedAVX2, fusedOnAVX2
	k.fused = fusedAVX2
	if l == LevelAVX512 {
		k.fused = fusedAVX512
		for op := range k.fusedHas {
			k.fusedHas[op] = true
		}
	}
	return k
}

// trig wraps a sin or cos kernel that stops at the first vector holding an
// argument beyond its range: that vector is finished in Go (which falls back
// to the math package for those lanes) and the kernel resumes after it.
func trig(f func(dst, x []float32) int, cos bool) func(dst, x []float32) {
	return func(dst, x []float32) {
		for len(x) > 0 {
			k := f(dst, x)
			dst, x = dst[k:], x[k:]
			m := min(len(x), 16)
			for i, v := range x[:m] {
				dst[i] = sincos32(v, cos)
			}
			dst, x = dst[m:], x[m:]
		}
	}
}

// convTail wraps a conversion kernel that handles whole vectors only.
func convTail[D, S any](f func(dst []D, src []S), scalar func(S) D) func(dst []D, src []S) {
	return func(dst []D, src []S) {
		f(dst, src)
		for i := len(src) &^ 15; i < len(src); i++ {
			dst[i] = scalar(src[i])
		}
	}
}
