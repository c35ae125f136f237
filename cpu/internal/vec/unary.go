package vec

import "github.com/shaderflow/shaderflow/tensor/device"

// Elementwise kernels of one operand: dst[i] = f(x[i]). dst and x must have
// the same length (they panic otherwise); dst may be x itself but must not
// otherwise overlap it. The semantics are device.UnaryF32's; the
// transcendentals are polynomial approximations whose measured errors are
// listed in the package documentation.

func unary(op device.Op, dst, x []float32) {
	if len(dst) != len(x) { // the name is built only on the panic path
		checkLen(kernelName(op, ""), "dst, x", len(dst), len(x))
	}
	current.unary[op](dst, x)
}

// Neg sets dst[i] = -x[i].
func Neg(dst, x []float32) { unary(device.OpNeg, dst, x) }

// Abs sets dst[i] = |x[i]|.
func Abs(dst, x []float32) { unary(device.OpAbs, dst, x) }

// Relu sets dst[i] = x[i] if x[i] > 0 or x[i] is NaN, else +0.
func Relu(dst, x []float32) { unary(device.OpRelu, dst, x) }

// Sqrt sets dst[i] = sqrt(x[i]), correctly rounded.
func Sqrt(dst, x []float32) { unary(device.OpSqrt, dst, x) }

// Rsqrt sets dst[i] = 1/sqrt(x[i]) (a correctly rounded square root then
// division: at most 1 ulp from the exact value).
func Rsqrt(dst, x []float32) { unary(device.OpRsqrt, dst, x) }

// Recip sets dst[i] = 1/x[i], correctly rounded.
func Recip(dst, x []float32) { unary(device.OpRecip, dst, x) }

// Exp sets dst[i] = e^x[i].
func Exp(dst, x []float32) { unary(device.OpExp, dst, x) }

// Log sets dst[i] = ln x[i] (log 0 = -Inf, log of a negative number = NaN).
func Log(dst, x []float32) { unary(device.OpLog, dst, x) }

// Tanh sets dst[i] = tanh x[i].
func Tanh(dst, x []float32) { unary(device.OpTanh, dst, x) }

// Sigmoid sets dst[i] = 1/(1+e^-x[i]).
func Sigmoid(dst, x []float32) { unary(device.OpSigmoid, dst, x) }

// Erf sets dst[i] = erf x[i].
func Erf(dst, x []float32) { unary(device.OpErf, dst, x) }

// GeluErf sets dst[i] = x/2 (1 + erf(x/sqrt 2)), the exact GELU.
func GeluErf(dst, x []float32) { unary(device.OpGeluErf, dst, x) }

// GeluTanh sets dst[i] = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the
// tanh approximation of GELU.
func GeluTanh(dst, x []float32) { unary(device.OpGeluTanh, dst, x) }

// GeluErfGrad sets dst[i] = Phi(x) + x phi(x), the exact GELU's derivative.
func GeluErfGrad(dst, x []float32) { unary(device.OpGeluErfGrad, dst, x) }

// GeluTanhGrad sets dst[i] to the tanh GELU's derivative at x[i].
func GeluTanhGrad(dst, x []float32) { unary(device.OpGeluTanhGrad, dst, x) }

// Silu sets dst[i] = x[i] sigmoid(x[i]).
func Silu(dst, x []float32) { unary(device.OpSilu, dst, x) }

// Sin sets dst[i] = sin x[i]. Beyond |x| = 2^20 it uses the math package.
func Sin(dst, x []float32) { unary(device.OpSin, dst, x) }

// Cos sets dst[i] = cos x[i]. Beyond |x| = 2^20 it uses the math package.
func Cos(dst, x []float32) { unary(device.OpCos, dst, x) }
