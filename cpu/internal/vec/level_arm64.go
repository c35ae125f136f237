//go:build !purego

package vec

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// archKernels returns the NEON kernels for LevelNEON (Advanced SIMD is part
// of every arm64 processor): the generated elementwise arithmetic (the
// binary ops and their scalar forms, Fma, Neg, Abs, Relu, Sqrt, Rsqrt,
// Recip, Exp, Log, Sigmoid, SiLU, Tanh, Erf, GeluErf, GeluTanh and their
// derivatives, Sin, Cos)
// the float64 sums and NaN-propagating extremes, the comparisons and
// selections, and the float16 and bfloat16 conversions, each finishing the
// last len%4 (sums: len%8; the others: len%16) elements with the pure-Go
// definition (sin and cos also each vector holding an argument beyond their
// range), and the index search of ArgMax and ArgMin (the matching vector
// searched in Go). Everything else (softmax rows) runs the pure-Go kernels,
// and there is no fused machine.
func archKernels(l Level) *kernels {
	if l != LevelNEON {
		return nil
	}
	k := goKernels()
	binary := map[device.Op][3]func(dst, a, b []float32){
		device.OpAdd: {addNEON}, device.OpSub: {subNEON}, device.OpMul: {mulNEON},
		device.OpDiv: {divNEON}, device.OpMax: {maximumNEON}, device.OpMin: {minimumNEON},
	}
	scalar := map[device.Op]func(dst, a []float32, s float32){
		device.OpAdd: addScalarNEON, device.OpSub: subScalarNEON, device.OpMul: mulScalarNEON,
		device.OpDiv: divScalarNEON, device.OpMax: maximumScalarNEON, device.OpMin: minimumScalarNEON,
	}
	for op, f := range binary {
		k.binary[op] = binaryTail(f[0], goBinaryFns[op])
		k.scalar[op] = scalarTail(scalar[op], goBinaryFns[op])
	}
	k.rscalar[device.OpSub] = scalarTail(scalarSubNEON, func(a, s float32) float32 { return s - a })
	k.rscalar[device.OpDiv] = scalarTail(scalarDivNEON, func(a, s float32) float32 { return s / a })
	unary := map[device.Op]func(dst, x []float32){
		device.OpNeg: negNEON, device.OpAbs: absNEON, device.OpRelu: reluNEON, device.OpSqrt: sqrtNEON,
		device.OpRsqrt: rsqrtNEON, device.OpRecip: recipNEON, device.OpExp: expNEON, device.OpSigmoid: sigmoidNEON,
		device.OpSilu: siluNEON, device.OpTanh: tanhNEON, device.OpLog: logNEON, device.OpErf: erfNEON,
		device.OpGeluErf: geluErfNEON, device.OpGeluTanh: geluTanhNEON,
		device.OpGeluErfGrad: geluErfGradNEON, device.OpGeluTanhGrad: geluTanhGradNEON,
	}
	for op, f := range unary {
		k.unary[op] = unaryTail(f, goUnaryFns[op])
	}
	k.unary[device.OpSin], k.unary[device.OpCos] = trig(sinNEON, false), trig(cosNEON, true)
	k.fma = func(dst, a, b, c []float32) {
		fmaNEON(dst, a, b, c)
		for i := len(dst) &^ 3; i < len(dst); i++ {
			dst[i] = fma32(a[i], b[i], c[i])
		}
	}
	k.sum = func(x []float32) float64 {
		s := sumNEON(x)
		for _, v := range x[len(x)&^7:] {
			s += float64(v)
		}
		return s
	}
	k.dot = func(a, b []float32) float64 {
		s := dotNEON(a, b)
		for i := len(a) &^ 7; i < len(a); i++ {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	k.sumSqDiff = func(x []float32, mean float32) float64 {
		s := sumSqDiffNEON(x, mean)
		for _, v := range x[len(x)&^7:] {
			d := float64(v) - float64(mean)
			s = math.FMA(d, d, s)
		}
		return s
	}
	k.addWidened = widenTail(addWidenedNEON, 8)
	k.repeat = repeatTail(repeatRunsNEON, 4)
	k.argMaxInto = argTail(argMaxIntoNEON, 4, argMax)
	k.argMinInto = argTail(argMinIntoNEON, 4, argMin)
	k.poolMaxInto = argTail(poolMaxIntoNEON, 4, poolMax)
	k.toHalf = convTail(toHalfNEON, device.Float32ToFloat16)
	k.fromHalf = convTail(fromHalfNEON, device.Float16ToFloat32)
	k.toBFloat = convTail(toBFloatNEON, device.Float32ToBFloat16)
	k.fromBFloat = convTail(fromBFloatNEON, device.BFloat16ToFloat32)
	k.indexOf = func(x []float32, v float32) int {
		i := indexOfNEON(x, v) // the vector holding the first match, or the tail
		if j := goIndexOf(x[i:], v); j >= 0 {
			return i + j
		}
		return -1
	}
	k.max = extremeTail(maxNEON, true)
	k.min = extremeTail(minNEON, false)
	setSelects(k, [numCmp]func(dst []uint8, a, b []float32){cmpEqNEON, cmpNeNEON, cmpLtNEON, cmpLeNEON, cmpGtNEON, cmpGeNEON},
		[numCmp]func(dst []uint8, a []float32, s float32){cmpEqScalarNEON, cmpNeScalarNEON, cmpLtScalarNEON, cmpLeScalarNEON,
			cmpGtScalarNEON, cmpGeScalarNEON},
		selNEON, selScalarNEON, selScalarInvNEON)
	k.setModes(ewSet{}, ewSet{}) // no prefetching or streaming forms: the cached kernels serve
	return k
}

// unaryTail completes a kernel of whole vectors with f.
func unaryTail(k func(dst, x []float32), f func(float32) float32) func(dst, x []float32) {
	return func(dst, x []float32) {
		k(dst, x)
		for i := len(x) &^ 3; i < len(x); i++ {
			dst[i] = f(x[i])
		}
	}
}

// binaryTail completes a kernel of whole vectors with f.
func binaryTail(k func(dst, a, b []float32), f func(a, b float32) float32) func(dst, a, b []float32) {
	return func(dst, a, b []float32) {
		k(dst, a, b)
		for i := len(dst) &^ 3; i < len(dst); i++ {
			dst[i] = f(a[i], b[i])
		}
	}
}

// scalarTail completes a kernel of whole vectors with f(a[i], s).
func scalarTail(k func(dst, a []float32, s float32), f func(a, s float32) float32) func(dst, a []float32, s float32) {
	return func(dst, a []float32, s float32) {
		k(dst, a, s)
		for i := len(dst) &^ 3; i < len(dst); i++ {
			dst[i] = f(a[i], s)
		}
	}
}

// extremeTail completes an extreme over whole vectors (at least one) with
// the pure-Go rule: the first NaN, else the largest (max) or smallest.
func extremeTail(k func(x []float32) float32, max bool) func(x []float32) float32 {
	return func(x []float32) float32 {
		if len(x) < 4 {
			return goExtreme(x, max)
		}
		m := k(x)
		if m != m {
			return m
		}
		for _, v := range x[len(x)&^3:] {
			if v != v {
				return v
			}
			if (max && v > m) || (!max && v < m) {
				m = v
			}
		}
		return m
	}
}
