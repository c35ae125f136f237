package vec

import "github.com/shaderflow/shaderflow/tensor/device"

// Elementwise kernels of two operands. All slices must have the same length
// (they panic otherwise); dst may be the same slice as an operand but must not
// otherwise overlap one. Maximum and Minimum propagate NaN like device.BinaryF32: the
// result is the first operand when it is NaN, else the second when that is
// NaN.

func binary(op device.Op, dst, a, b []float32) {
	if len(a) != len(dst) || len(b) != len(dst) { // the name is built only on the panic path
		checkLen(kernelName(op, ""), "dst, a, b", len(dst), len(a), len(b))
	}
	current.binary[op](dst, a, b)
}

func scalarOp(op device.Op, dst, a []float32, s float32) {
	checkScalarLen(op, "scalar", len(dst), len(a))
	current.scalar[op](dst, a, s)
}

func rscalarOp(op device.Op, dst, a []float32, s float32) {
	checkScalarLen(op, "rscalar", len(dst), len(a))
	current.rscalar[op](dst, a, s)
}

// checkScalarLen panics unless a scalar kernel's slices have equal
// lengths.
func checkScalarLen(op device.Op, form string, nd, na int) {
	if nd != na { // the name is built only on the panic path: no allocation per call
		checkLen(kernelName(op, form), "dst, a", nd, na)
	}
}

// Add sets dst[i] = a[i] + b[i].
func Add(dst, a, b []float32) { binary(device.OpAdd, dst, a, b) }

// Sub sets dst[i] = a[i] - b[i].
func Sub(dst, a, b []float32) { binary(device.OpSub, dst, a, b) }

// Mul sets dst[i] = a[i] * b[i].
func Mul(dst, a, b []float32) { binary(device.OpMul, dst, a, b) }

// Div sets dst[i] = a[i] / b[i].
func Div(dst, a, b []float32) { binary(device.OpDiv, dst, a, b) }

// Maximum sets dst[i] = max(a[i], b[i]), propagating NaN (torch.maximum).
func Maximum(dst, a, b []float32) { binary(device.OpMax, dst, a, b) }

// Minimum sets dst[i] = min(a[i], b[i]), propagating NaN (torch.minimum).
func Minimum(dst, a, b []float32) { binary(device.OpMin, dst, a, b) }

// AddScalar sets dst[i] = a[i] + s.
func AddScalar(dst, a []float32, s float32) { scalarOp(device.OpAdd, dst, a, s) }

// SubScalar sets dst[i] = a[i] - s.
func SubScalar(dst, a []float32, s float32) { scalarOp(device.OpSub, dst, a, s) }

// MulScalar sets dst[i] = a[i] * s.
func MulScalar(dst, a []float32, s float32) { scalarOp(device.OpMul, dst, a, s) }

// DivScalar sets dst[i] = a[i] / s.
func DivScalar(dst, a []float32, s float32) { scalarOp(device.OpDiv, dst, a, s) }

// MaximumScalar sets dst[i] = max(a[i], s), propagating NaN.
func MaximumScalar(dst, a []float32, s float32) { scalarOp(device.OpMax, dst, a, s) }

// MinimumScalar sets dst[i] = min(a[i], s), propagating NaN.
func MinimumScalar(dst, a []float32, s float32) { scalarOp(device.OpMin, dst, a, s) }

// ScalarSub sets dst[i] = s - a[i].
func ScalarSub(dst, a []float32, s float32) { rscalarOp(device.OpSub, dst, a, s) }

// ScalarDiv sets dst[i] = s / a[i].
func ScalarDiv(dst, a []float32, s float32) { rscalarOp(device.OpDiv, dst, a, s) }

// Fma sets dst[i] = a[i]*b[i] + c[i], rounded once.
func Fma(dst, a, b, c []float32) {
	if len(a) != len(dst) || len(b) != len(dst) || len(c) != len(dst) {
		checkLen(kernelName(device.OpFma, ""), "dst, a, b, c", len(dst), len(a), len(b), len(c))
	}
	current.fma(dst, a, b, c)
}
