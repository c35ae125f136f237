package vec

// Polynomial coefficients of the transcendental kernels, lowest degree first.
// They are produced by `go run ./fit` in tools/asmgen/vec (weighted minimax
// fits rounded to float32) and read from this file by the assembly generator
// there, so the pure-Go and assembly kernels share them. The comment above each
// gives the interval and the fit's own maximum relative error; the kernels'
// measured errors are in doc.go.

// expPoly: exp(r) = 1 + r + r^2 Q(r), degree 4 on [-0.35, 0.35], 0.06 ulp.
var expPoly = [...]float32{0.49999994, 0.16666517, 0.04166828, 0.008369247, 0.0013820758}

// logPoly: log(1+f) = f - f^2/2 + f^3 Q(f), degree 7 on [sqrt(1/2)-1, sqrt(2)-1], 0.10 ulp.
var logPoly = [...]float32{0.3333333, -0.25000852, 0.20001331, -0.1662223, 0.14198053, -0.1316801, 0.12794366, -0.0765575}

// erfPoly: erf(x) = x Q(x^2), degree 5 on [0, 0.875], 0.16 ulp. The constant
// term 2/sqrt(pi) is split into the first two entries (hi, lo).
var erfPoly = [...]float32{1.1283792, -5.8635383e-08, -0.37612575, 0.112826295, -0.026796404, 0.005038284, -0.0006230566}

// erfcPoly: erfc(t) = exp(-t^2) z Q(z-1/2) with z = 1/(1+t/2), degree 9 on
// t in [0.49, 10.6], 0.06 ulp; the constant term is split (hi, lo) like erfPoly's.
var erfcPoly = [...]float32{0.51079136, -7.949343e-09, 0.6871607, 0.55894387, 0.14577307, -0.17205328, -0.103874415, 0.09781336, 0.05715006, -0.07004872, -0.030911256}

// geluErfcPoly: erfc(a/sqrt 2) = exp(-a^2/2) z Q(z-1/2) with z = 1/(1+k a),
// k = geluZk, degree 10 on a in [0, 15.1], 0.07 ulp; constant term split.
var geluErfcPoly = [...]float32{0.51079136, -1.413143e-08, 0.6871607, 0.55894357, 0.145769, -0.17204662, -0.10365734, 0.09803175, 0.053671863, -0.07626538, -0.013491177, 0.037594948}

// sinPoly: sin(r) = r + r^3 Q(r^2), degree 3 on [0, pi/4], 0.00 ulp.
var sinPoly = [...]float32{-0.16666667, 0.008333379, -0.00019853073, 2.8326922e-06}

// cosPoly: cos(r) = 1 - r^2/2 + r^4 Q(r^2), degree 2 on [0, pi/4], 0.00 ulp.
var cosPoly = [...]float32{0.041666646, -0.001388731, 2.443233e-05}

// Range-reduction and formula constants. Split constants (hi, lo and so on)
// sum to the named number to well beyond float32 precision.
const (
	log2e  = 1.442695  // 1/ln 2
	ln2Hi  = 0.6931472 // ln 2, high part
	ln2Lo  = -1.9046542e-09
	expMin = -104.0 // exp underflows to 0 below here
	expMax = 89.0   // exp overflows to +Inf above here

	sqrt2f  = 1.4142135     // float32(sqrt 2)
	logTiny = 1.1754944e-38 // smallest normal float32: log scales smaller inputs by 2^23

	tanhClamp = 9.5        // tanh(x) is ±1 in float32 beyond this |x| (from 9.011)
	erfSmall  = 0.875      // erf uses its polynomial below this |x|
	erfClamp  = 11.0       // erfc(t) is 0 in float32 beyond this
	geluClamp = 15.0       // |x| beyond which gelu is x or 0
	geluZk    = 0.35355338 // float32 nearest 1/(2 sqrt 2), the map to geluErfcPoly's variable

	// GELU (tanh form): x*sigmoid(x*(c1 + c2*x^2)), c1 = 2*sqrt(2/pi), c2 = c1*0.044715.
	geluC1Hi      = 1.5957692
	geluC1Lo      = -4.534068e-08
	geluC2Hi      = 0.071354814
	geluC2Lo      = 2.3988325e-09
	geluTanhClamp = 30.0

	twoOverPi = 0.63661975 // 2/pi
	pio2A     = 1.5707964  // pi/2 in three parts
	pio2B     = -4.371139e-08
	pio2C     = -1.7151245e-15
	trigMax   = 1048576.0 // sin and cos fall back to the math package beyond this |x| (2^20)
)
