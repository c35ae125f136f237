package cpu

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// The slice kernels: the interpreter's inner loops over one chunk of
// registers. They are the SIMD seam: installGo sets the pure-Go kernels
// below, and simd.go then replaces entries at init with the vec kernels,
// which give the same results (bit for bit for arithmetic, to within the
// documented error for transcendental functions).
// Every kernel writes len(dst) elements, reads sources at least that long,
// and must allow dst to be exactly one of its sources. The conversions
// between float32 and the half-precision formats are seams too.
var (
	// unaryF32 holds, per float unary op, dst[i] = op(x[i]).
	unaryF32 [device.NumOps]func(dst, x []float32)
	// binaryF32 holds, per float binary op, dst[i] = op(x[i], y[i]).
	binaryF32 [device.NumOps]func(dst, x, y []float32)
	// binaryF32Scalar holds, per float binary op, dst[i] = op(x[i], s): the
	// second operand is the same for every element (a constant or a
	// broadcast scalar).
	binaryF32Scalar [device.NumOps]func(dst, x []float32, s float32)
	// scalarBinaryF32 holds, per float binary op, dst[i] = op(s, x[i]).
	scalarBinaryF32 [device.NumOps]func(dst, x []float32, s float32)
	// compareF32 holds, per comparison, dst[i] = 1 if x[i] op y[i], else 0.
	compareF32 [device.NumOps]func(dst []uint8, x, y []float32)
	// compareF32Scalar holds, per comparison, dst[i] = 1 if x[i] op s,
	// else 0.
	compareF32Scalar [device.NumOps]func(dst []uint8, x []float32, s float32)
	// whereF32 sets dst[i] = x[i] where c[i] != 0, else y[i], copying bits
	// (int32 registers go through float32 views).
	whereF32 func(dst []float32, c []uint8, x, y []float32)
	// whereF32Else sets dst[i] = x[i] where c[i] != 0, else s.
	whereF32Else func(dst []float32, c []uint8, x []float32, s float32)
	// whereF32Then sets dst[i] = s where c[i] != 0, else y[i].
	whereF32Then func(dst []float32, c []uint8, s float32, y []float32)
	// compareI32 is compareF32 for int32 registers.
	compareI32 [device.NumOps]func(dst []uint8, x, y []int32)
	// fmaF32 computes dst[i] = x[i]*y[i] + z[i].
	fmaF32 func(dst, x, y, z []float32)
	// sumF32 returns the sum of x accumulated in float64.
	sumF32 func(x []float32) float64
	// maxF32 and minF32 return the largest and smallest element of a
	// non-empty x, or a NaN when x holds one.
	maxF32, minF32 func(x []float32) float32
	// argMaxF32 and argMinF32 return the index of the first largest and
	// smallest element of a non-empty x, a NaN counting as more extreme
	// than everything (the first NaN wins).
	argMaxF32, argMinF32 func(x []float32) int
	// halfToF32 converts float16 bits to float32 exactly.
	halfToF32 func(dst []float32, src []uint16)
	// f32ToHalf converts float32 to float16 bits, rounding to nearest even.
	f32ToHalf func(dst []uint16, src []float32)
	// bf16ToF32 converts bfloat16 bits to float32 exactly.
	bf16ToF32 func(dst []float32, src []uint16)
	// f32ToBF16 converts float32 to bfloat16 bits, rounding to nearest even.
	f32ToBF16 func(dst []uint16, src []float32)
)

// Kernel modes: how a float slice kernel moves its data (cpu/internal/vec's
// Mode). Every mode gives the same results; plan.allocate picks one per
// instruction.
const (
	modeCached   = iota // ordinary loads and stores: the seams above
	modePrefetch        // inputs prefetched ahead: they stream from memory
	modeStream          // inputs prefetched, non-temporal stores: a large output written once
	numModes
)

// f32Kernels is the float slice kernels of one mode, with the seams'
// meanings.
type f32Kernels struct {
	unary                      [device.NumOps]func(dst, x []float32)
	binary                     [device.NumOps]func(dst, x, y []float32)
	binaryScalar, scalarBinary [device.NumOps]func(dst, x []float32, s float32)
	fma                        func(dst, x, y, z []float32)
}

// modeF32 holds the float slice kernels of each mode; modeF32[modeCached]
// is always the seams unaryF32, binaryF32, binaryF32Scalar, scalarBinaryF32
// and fmaF32 (setModes keeps it so).
var modeF32 [numModes]f32Kernels

// cachedF32 returns the seams as a kernel set.
func cachedF32() f32Kernels {
	return f32Kernels{unary: unaryF32, binary: binaryF32, binaryScalar: binaryF32Scalar, scalarBinary: scalarBinaryF32, fma: fmaF32}
}

// setModes installs the kernels of every mode: the seams from m[modeCached]
// and modeF32 from m.
func setModes(m [numModes]f32Kernels) {
	c := &m[modeCached]
	unaryF32, binaryF32, binaryF32Scalar, scalarBinaryF32, fmaF32 = c.unary, c.binary, c.binaryScalar, c.scalarBinary, c.fma
	modeF32 = m
}

// installGo sets every seam to its pure-Go kernel.
func installGo() {
	for _, op := range device.Ops() {
		switch {
		case op.IsArith(1):
			unaryF32[op] = unaryF32Go(op)
		case op.IsArith(2):
			binaryF32[op] = binaryF32Go(op)
			binaryF32Scalar[op] = binaryF32ScalarGo(op, false)
			scalarBinaryF32[op] = binaryF32ScalarGo(op, true)
		case op.IsComparison():
			compareF32[op] = compareGo[float32](op)
			compareI32[op] = compareGo[int32](op)
			compareF32Scalar[op] = compareScalarGo(op)
		}
	}
	whereF32 = func(dst []float32, c []uint8, x, y []float32) { where(u32s(dst), c, u32s(x), u32s(y)) }
	whereF32Else = func(dst []float32, c []uint8, x []float32, s float32) { whereScalarGo(dst, c, x, s, false) }
	whereF32Then = func(dst []float32, c []uint8, s float32, y []float32) { whereScalarGo(dst, c, y, s, true) }
	fmaF32 = fmaF32Go
	c := cachedF32()
	setModes([numModes]f32Kernels{c, c, c}) // pure Go has no prefetching or streaming forms
	sumF32 = sumF32Go
	halfToF32, f32ToHalf = convertGo(device.Float16ToFloat32), convertGo(device.Float32ToFloat16)
	bf16ToF32, f32ToBF16 = convertGo(device.BFloat16ToFloat32), convertGo(device.Float32ToBFloat16)
	maxF32 = func(x []float32) float32 { return x[extremeGo(x, device.ReduceMax)] }
	minF32 = func(x []float32) float32 { return x[extremeGo(x, device.ReduceMin)] }
	argMaxF32 = func(x []float32) int { return extremeGo(x, device.ReduceMax) }
	argMinF32 = func(x []float32) int { return extremeGo(x, device.ReduceMin) }
	sgemm = sgemmRef
	sgemmTaps = nil
}

// unaryF32Go returns the pure-Go kernel of a float unary op: specialized
// loops for the cheap ops, device.UnaryF32 for the rest.
func unaryF32Go(op device.Op) func(dst, x []float32) {
	switch op {
	case device.OpNeg:
		return func(dst, x []float32) {
			x = x[:len(dst)]
			for i := range dst {
				dst[i] = -x[i]
			}
		}
	case device.OpRelu:
		return func(dst, x []float32) {
			x = x[:len(dst)]
			for i := range dst {
				v := x[i]
				if !(v > 0 || v != v) {
					v = 0
				}
				dst[i] = v
			}
		}
	case device.OpRecip:
		return func(dst, x []float32) {
			x = x[:len(dst)]
			for i := range dst {
				dst[i] = 1 / x[i]
			}
		}
	}
	f := op.Info().Float
	return func(dst, x []float32) {
		x = x[:len(dst)]
		for i := range dst {
			dst[i] = f(x[i])
		}
	}
}

// binaryF32Go returns the pure-Go kernel of a float binary op.
func binaryF32Go(op device.Op) func(dst, x, y []float32) {
	switch op {
	case device.OpAdd:
		return func(dst, x, y []float32) {
			x, y = x[:len(dst)], y[:len(dst)]
			for i := range dst {
				dst[i] = x[i] + y[i]
			}
		}
	case device.OpSub:
		return func(dst, x, y []float32) {
			x, y = x[:len(dst)], y[:len(dst)]
			for i := range dst {
				dst[i] = x[i] - y[i]
			}
		}
	case device.OpMul:
		return func(dst, x, y []float32) {
			x, y = x[:len(dst)], y[:len(dst)]
			for i := range dst {
				dst[i] = x[i] * y[i]
			}
		}
	case device.OpDiv:
		return func(dst, x, y []float32) {
			x, y = x[:len(dst)], y[:len(dst)]
			for i := range dst {
				dst[i] = x[i] / y[i]
			}
		}
	case device.OpMax:
		return func(dst, x, y []float32) {
			x, y = x[:len(dst)], y[:len(dst)]
			for i := range dst {
				a, b := x[i], y[i]
				if a != a || a > b {
					b = a
				}
				dst[i] = b
			}
		}
	case device.OpMin:
		return func(dst, x, y []float32) {
			x, y = x[:len(dst)], y[:len(dst)]
			for i := range dst {
				a, b := x[i], y[i]
				if a != a || a < b {
					b = a
				}
				dst[i] = b
			}
		}
	}
	return func(dst, x, y []float32) {
		x, y = x[:len(dst)], y[:len(dst)]
		for i := range dst {
			dst[i] = device.BinaryF32(op, x[i], y[i])
		}
	}
}

// binaryF32ScalarGo returns the pure-Go kernel of a float binary op with one
// operand s fixed: op(x[i], s), or op(s, x[i]) when left is set. The common
// ops get their own loops; the rest use device.BinaryF32.
func binaryF32ScalarGo(op device.Op, left bool) func(dst, x []float32, s float32) {
	switch {
	case op == device.OpAdd:
		return func(dst, x []float32, s float32) {
			x = x[:len(dst)]
			for i := range dst {
				dst[i] = x[i] + s
			}
		}
	case op == device.OpMul:
		return func(dst, x []float32, s float32) {
			x = x[:len(dst)]
			for i := range dst {
				dst[i] = x[i] * s
			}
		}
	case op == device.OpSub && !left:
		return func(dst, x []float32, s float32) {
			x = x[:len(dst)]
			for i := range dst {
				dst[i] = x[i] - s
			}
		}
	case op == device.OpDiv && !left:
		return func(dst, x []float32, s float32) {
			x = x[:len(dst)]
			for i := range dst {
				dst[i] = x[i] / s
			}
		}
	case left:
		return func(dst, x []float32, s float32) {
			x = x[:len(dst)]
			for i := range dst {
				dst[i] = device.BinaryF32(op, s, x[i])
			}
		}
	}
	return func(dst, x []float32, s float32) {
		x = x[:len(dst)]
		for i := range dst {
			dst[i] = device.BinaryF32(op, x[i], s)
		}
	}
}

// b2u converts a bool to 0 or 1.
func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// compareGo returns the pure-Go kernel of a comparison.
func compareGo[T float32 | int32](op device.Op) func(dst []uint8, x, y []T) {
	switch op {
	case device.OpEq:
		return func(dst []uint8, x, y []T) {
			x, y = x[:len(dst)], y[:len(dst)]
			for i := range dst {
				dst[i] = b2u(x[i] == y[i])
			}
		}
	case device.OpNe:
		return func(dst []uint8, x, y []T) {
			x, y = x[:len(dst)], y[:len(dst)]
			for i := range dst {
				dst[i] = b2u(x[i] != y[i])
			}
		}
	case device.OpLt:
		return func(dst []uint8, x, y []T) {
			x, y = x[:len(dst)], y[:len(dst)]
			for i := range dst {
				dst[i] = b2u(x[i] < y[i])
			}
		}
	case device.OpLe:
		return func(dst []uint8, x, y []T) {
			x, y = x[:len(dst)], y[:len(dst)]
			for i := range dst {
				dst[i] = b2u(x[i] <= y[i])
			}
		}
	case device.OpGt:
		return func(dst []uint8, x, y []T) {
			x, y = x[:len(dst)], y[:len(dst)]
			for i := range dst {
				dst[i] = b2u(x[i] > y[i])
			}
		}
	}
	return func(dst []uint8, x, y []T) {
		x, y = x[:len(dst)], y[:len(dst)]
		for i := range dst {
			dst[i] = b2u(x[i] >= y[i])
		}
	}
}

// compareScalarGo returns the pure-Go kernel of a comparison with a
// scalar second operand.
func compareScalarGo(op device.Op) func(dst []uint8, x []float32, s float32) {
	return func(dst []uint8, x []float32, s float32) {
		x = x[:len(dst)]
		for i := range dst {
			dst[i] = b2u(device.Compare(op, x[i], s))
		}
	}
}

// whereScalarGo sets dst[i] = c[i] != 0 ? x[i] : s, or c[i] != 0 ? s :
// x[i] when inv, copying bits without branches.
func whereScalarGo(dst []float32, c []uint8, x []float32, s float32, inv bool) {
	c, x = c[:len(dst)], x[:len(dst)]
	sb, flip := math.Float32bits(s), uint32(0)
	if inv {
		flip = ^uint32(0)
	}
	for j := range dst {
		m := -uint32(c[j]) ^ flip // c[j] is 0 or 1 (bool registers are normalized)
		xb := math.Float32bits(x[j])
		dst[j] = math.Float32frombits(sb ^ ((xb ^ sb) & m))
	}
}

// sumF32Go sums x in float64 with eight independent accumulators, enough
// to keep both floating-point adders busy.
func sumF32Go(x []float32) float64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s0 += float64(v[0])
		s1 += float64(v[1])
		s2 += float64(v[2])
		s3 += float64(v[3])
		s4 += float64(v[4])
		s5 += float64(v[5])
		s6 += float64(v[6])
		s7 += float64(v[7])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i])
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// fmaF32Go computes dst[i] = x[i]*y[i] + z[i] rounded once, as tensor.Fma
// and the SIMD kernels define it, on every architecture (x*y+z is fused by
// the compiler on arm64 but not on amd64).
func fmaF32Go(dst, x, y, z []float32) {
	x, y, z = x[:len(dst)], y[:len(dst)], z[:len(dst)]
	for i := range dst {
		dst[i] = float32(math.FMA(float64(x[i]), float64(y[i]), float64(z[i])))
	}
}

// extremeGo returns the index of the first maximum (op ReduceMax) or
// minimum of a non-empty x; the first NaN wins.
func extremeGo(x []float32, op device.ReduceOp) int {
	best := 0
	for i := 1; i < len(x); i++ {
		if better(op, float64(x[i]), float64(x[best])) {
			best = i
		}
	}
	return best
}

// convertGo returns the pure-Go conversion of a slice element by element
// with f (the contract's scalar conversions): dst[j] = f(src[j]).
func convertGo[S, D any](f func(S) D) func(dst []D, src []S) {
	return func(dst []D, src []S) {
		src = src[:len(dst)]
		for j := range dst {
			dst[j] = f(src[j])
		}
	}
}
