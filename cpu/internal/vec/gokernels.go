package vec

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// The pure-Go kernels: the whole of LevelGo, and the reference structure the
// assembly follows.

func goKernels() *kernels {
	k := &kernels{
		fma:        goFma,
		sum:        goSum,
		dot:        goDot,
		sumSqDiff:  goSumSqDiff,
		max:        func(x []float32) float32 { return goExtreme(x, true) },
		min:        func(x []float32) float32 { return goExtreme(x, false) },
		indexOf:    goIndexOf,
		expSub:     goExpSub,
		sumExpSub:  func(x []float32, m float32) float64 { return goExpSub(nil, x, m) },
		toHalf:     goToHalf,
		fromHalf:   goFromHalf,
		toBFloat:   goToBFloat,
		fromBFloat: goFromBFloat,
		triad: func(dst, b, c []float32, q float32) {
			for i := range dst {
				dst[i] = b[i] + float32(q*c[i]) // unfused on every architecture
			}
		},
		copy:        func(dst, x []float32) { copy(dst, x) },
		addWidened:  goAddWidened,
		repeat:      goRepeat,
		argMaxInto:  func(best []float32, idx []int32, x []float32, row int32) { goArgInto(best, idx, x, row, argMax) },
		argMinInto:  func(best []float32, idx []int32, x []float32, row int32) { goArgInto(best, idx, x, row, argMin) },
		poolMaxInto: func(best []float32, idx []int32, x []float32, row int32) { goArgInto(best, idx, x, row, poolMax) },
	}
	for op, f := range goUnaryFns {
		if f != nil {
			k.unary[op] = goUnary(f)
		}
	}
	goSelects(k)
	for op, f := range goBinaryFns {
		if f != nil {
			k.binary[op] = goBinary(f)
			k.scalar[op] = goScalar(f)
		}
	}
	for _, op := range []device.Op{device.OpSub, device.OpDiv} {
		f := goBinaryFns[op]
		k.rscalar[op] = goScalar(func(a, s float32) float32 { return f(s, a) })
	}
	k.setModes(ewSet{}, ewSet{}) // pure Go has no prefetching or streaming stores
	return k
}

// goUnaryFns holds the scalar form of each unary kernel, by op: the ops
// that have a kernel in this package at every level.
var goUnaryFns = [device.NumOps]func(float32) float32{
	device.OpNeg:          func(x float32) float32 { return -x },
	device.OpAbs:          abs32,
	device.OpRelu:         device.OpRelu.Info().Float,
	device.OpSqrt:         func(x float32) float32 { return float32(math.Sqrt(float64(x))) },
	device.OpRsqrt:        func(x float32) float32 { return 1 / float32(math.Sqrt(float64(x))) },
	device.OpRecip:        func(x float32) float32 { return 1 / x },
	device.OpExp:          exp32,
	device.OpLog:          log32,
	device.OpTanh:         tanh32,
	device.OpSigmoid:      sigmoid32,
	device.OpErf:          erf32,
	device.OpGeluErf:      geluErf32,
	device.OpGeluTanh:     geluTanh32,
	device.OpGeluErfGrad:  geluErfGrad32,
	device.OpGeluTanhGrad: geluTanhGrad32,
	device.OpSilu:         silu32,
	device.OpSin:          func(x float32) float32 { return sincos32(x, false) },
	device.OpCos:          func(x float32) float32 { return sincos32(x, true) },
}

// goBinaryFns holds the scalar form of each binary kernel, by op.
var goBinaryFns = [device.NumOps]func(a, b float32) float32{
	device.OpAdd: func(a, b float32) float32 { return a + b },
	device.OpSub: func(a, b float32) float32 { return a - b },
	device.OpMul: func(a, b float32) float32 { return a * b },
	device.OpDiv: func(a, b float32) float32 { return a / b },
	device.OpMax: device.OpMax.Info().Float2,
	device.OpMin: device.OpMin.Info().Float2,
}

func goUnary(f func(float32) float32) func(dst, x []float32) {
	return func(dst, x []float32) {
		for i, v := range x {
			dst[i] = f(v)
		}
	}
}

func goBinary(f func(a, b float32) float32) func(dst, a, b []float32) {
	return func(dst, a, b []float32) {
		for i := range dst {
			dst[i] = f(a[i], b[i])
		}
	}
}

func goScalar(f func(a, s float32) float32) func(dst, a []float32, s float32) {
	return func(dst, a []float32, s float32) {
		for i, v := range a {
			dst[i] = f(v, s)
		}
	}
}

func goFma(dst, a, b, c []float32) {
	for i := range dst {
		dst[i] = fma32(a[i], b[i], c[i])
	}
}

func goSum(x []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i])
		s1 += float64(x[i+1])
		s2 += float64(x[i+2])
		s3 += float64(x[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i])
	}
	return (s0 + s1) + (s2 + s3)
}

func goDot(a, b []float32) float64 {
	var s0, s1 float64
	i := 0
	for ; i+2 <= len(a); i += 2 {
		s0 += float64(a[i]) * float64(b[i])
		s1 += float64(a[i+1]) * float64(b[i+1])
	}
	if i < len(a) {
		s0 += float64(a[i]) * float64(b[i])
	}
	return s0 + s1
}

// goSumSqDiff fuses each square into its sum, as the assembly does, so that
// every architecture gives the same result (a float64 square of a difference
// is not exact, unlike goDot's products of float32 values).
func goSumSqDiff(x []float32, mean float32) float64 {
	m := float64(mean)
	var s0, s1 float64
	i := 0
	for ; i+2 <= len(x); i += 2 {
		d0, d1 := float64(x[i])-m, float64(x[i+1])-m
		s0 = math.FMA(d0, d0, s0)
		s1 = math.FMA(d1, d1, s1)
	}
	if i < len(x) {
		d := float64(x[i]) - m
		s0 = math.FMA(d, d, s0)
	}
	return s0 + s1
}

// goExtreme returns the maximum (max true) or minimum, or the first NaN.
func goExtreme(x []float32, max bool) float32 {
	m := x[0]
	for _, v := range x {
		if v != v {
			return v
		}
		if (max && v > m) || (!max && v < m) {
			m = v
		}
	}
	return m
}

func goIndexOf(x []float32, v float32) int {
	nan := v != v
	for i, e := range x {
		if e == v || (nan && e != e) {
			return i
		}
	}
	return -1
}

// expSub32 returns exp(x-m) with x-m carried to double float32 precision,
// so that the rounding of the subtraction does not show in the result.
func expSub32(x, m float32) float32 {
	d, dl := twoSum(x, -m)
	if dl != dl {
		dl = 0 // x or m infinite
	}
	return expHL(d, dl)
}

// goExpSub stores exp(x-m) in dst (unless dst is nil) and returns the sum.
func goExpSub(dst, x []float32, m float32) float64 {
	var s float64
	for i, v := range x {
		e := expSub32(v, m)
		if dst != nil {
			dst[i] = e
		}
		s += float64(e)
	}
	return s
}

func goToHalf(dst []uint16, src []float32) {
	for i, v := range src {
		dst[i] = device.Float32ToFloat16(v)
	}
}

func goFromHalf(dst []float32, src []uint16) {
	for i, v := range src {
		dst[i] = device.Float16ToFloat32(v)
	}
}

func goToBFloat(dst []uint16, src []float32) {
	for i, v := range src {
		dst[i] = device.Float32ToBFloat16(v)
	}
}

func goFromBFloat(dst []float32, src []uint16) {
	for i, v := range src {
		dst[i] = device.BFloat16ToFloat32(v)
	}
}

// goAddWidened adds each float32 of src, widened, to dst.
func goAddWidened(dst []float64, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] += float64(v)
	}
}

// goRepeat sets dst[i*n:(i+1)*n] to src[i] for every i.
func goRepeat(dst, src []float32, n int) {
	for i, v := range src {
		run := dst[i*n : (i+1)*n]
		for j := range run {
			run[j] = v
		}
	}
}

// argRule is the test by which a folded value x takes a lane from best.
type argRule int

const (
	argMax  argRule = iota // greater, or NaN where best is a number: the first maximum (first NaN)
	argMin                 // less, or NaN where best is a number
	poolMax                // greater or NaN: the first maximum, else the last NaN (max pooling)
)

// beats reports whether v takes the lane from b under rule r.
func (r argRule) beats(v, b float32) bool {
	switch r {
	case argMax:
		return v > b || v != v && b == b
	case argMin:
		return v < b || v != v && b == b
	default:
		return v > b || v != v
	}
}

// goArgInto sets best[i], idx[i] = x[i], row where x[i] beats best[i]
// under rule r.
func goArgInto(best []float32, idx []int32, x []float32, row int32, r argRule) {
	best, idx = best[:len(x)], idx[:len(x)]
	for i, v := range x {
		if r.beats(v, best[i]) {
			best[i], idx[i] = v, row
		}
	}
}
