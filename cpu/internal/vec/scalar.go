package vec

import "math"

// Scalar float32 versions of the transcendental kernels. They are the pure-Go
// kernels and, step for step, the algorithms the assembly generator emits
// (same reductions, polynomials, constants and special-value handling), so
// every ISA level has the same error behaviour.

// fma32 returns a*b+c. It is used where the vector kernels use a fused
// multiply-add; the float64 intermediate makes it exact except for rare
// double-rounding cases, which the error bounds absorb.
func fma32(a, b, c float32) float32 {
	return float32(math.FMA(float64(a), float64(b), float64(c)))
}

// horner evaluates c[0] + c[1] u + ... with fused multiply-adds.
func horner(c []float32, u float32) float32 {
	s := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		s = fma32(s, u, c[i])
	}
	return s
}

// isNaN32 reports whether x is a NaN.
func isNaN32(x float32) bool { return x != x }

// clamp returns x limited to [lo, hi]; NaN stays NaN.
func clamp(x, lo, hi float32) float32 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// pow2 returns 2^e for -126 <= e <= 127.
func pow2(e int32) float32 { return math.Float32frombits(uint32(e+127) << 23) }

// ldexp returns p*2^n for n in [-150, 128], rounding once. The conversion
// keeps the compiler from fusing the product into a caller's addition (as
// it may on arm64), which the vector kernels do not do.
func ldexp(p float32, n int32) float32 {
	e1 := n >> 1
	return float32(p * pow2(e1) * pow2(n-e1))
}

// expHL returns exp(h+l) for |l| much smaller than 1 ulp of h.
func expHL(h, l float32) float32 { return expMul(h, l, 1) }

// expMul returns f*exp(h+l), rounding the product once: with
// exp(r) = 1 + t, it is ldexp(f + t*f, n).
func expMul(h, l, f float32) float32 {
	t, n := expParts(h, l)
	return ldexp(fma32(t, f, f), n)
}

// expParts returns t and n with exp(h+l) = (1+t) 2^n (t = -1 where exp
// underflows), or t = NaN for a NaN h.
func expParts(h, l float32) (t float32, n int32) {
	if isNaN32(h) {
		return h, 0
	}
	hc := clamp(h, expMin, expMax)
	nf := float32(math.RoundToEven(float64(hc * log2e)))
	r := fma32(-nf, ln2Hi, hc)
	r = fma32(-nf, ln2Lo, r)
	r += l
	q := horner(expPoly[:], r)
	t = fma32(q, r*r, r)
	if h < expMin {
		t = -1 // exp is 0 to float32 precision even when scaled by a large f
	}
	return t, int32(nf)
}

// exp32 returns e^x.
func exp32(x float32) float32 { return expHL(x, 0) }

// log32 returns the natural logarithm of x.
func log32(x float32) float32 {
	switch {
	case x == 0:
		return float32(math.Inf(-1))
	case x < 0:
		return float32(math.NaN())
	case isNaN32(x) || x > math.MaxFloat32:
		return x
	}
	k := int32(0)
	if x < logTiny {
		x *= 1 << 23
		k = -23
	}
	b := math.Float32bits(x)
	e := int32(b>>23) - 127 + k
	m := math.Float32frombits(b&0x7fffff | 0x3f800000)
	if m > sqrt2f {
		m *= 0.5
		e++
	}
	f := m - 1
	ef := float32(e)
	p := horner(logPoly[:], f)
	f2 := f * f
	y := f2 * fma32(f, p, -0.5)
	y = fma32(ef, ln2Lo, y)
	y += f
	return fma32(ef, ln2Hi, y)
}

// copysign32 returns |x| with the sign of s.
func copysign32(x, s float32) float32 {
	return math.Float32frombits(math.Float32bits(x)&0x7fffffff | math.Float32bits(s)&0x80000000)
}

// abs32 returns |x|.
func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) & 0x7fffffff) }

// expm1Parts returns exp(h)-1 for 0 <= h <= 2*tanhClamp from exp's parts
// (1+t) 2^n, rounded once: 2^n t + (2^n - 1), where 2^n - 1 is exact for
// the n that matter (n <= 24; beyond, the sum is 2^n(1+t) to float32
// precision anyway). For n = 0 it is t itself, so small h keep their
// relative accuracy.
func expm1Parts(h float32) float32 {
	t, n := expParts(h, 0)
	p := pow2(n)
	return fma32(p, t, p-1)
}

// tanh32 returns the hyperbolic tangent of x as E/(E+2) with E =
// expm1(2|x|): one formula for the whole range (E keeps small arguments'
// relative accuracy, so there is no cancellation to avoid with a second
// branch).
func tanh32(x float32) float32 {
	a := min(abs32(x), tanhClamp)
	e := expm1Parts(a + a)
	return copysign32(e/(e+2), x)
}

// sigmoidParts returns e = exp(-|x|) and num = (x >= 0 ? 1 : e) * f, so
// that f*sigmoid(x) = num/(1+e); the product e*f is rounded once.
func sigmoidParts(x, f float32) (num, e float32) {
	t, n := expParts(-abs32(x), 0)
	e = ldexp(t+1, n)
	if x >= 0 {
		return f, e
	}
	return ldexp(fma32(t, f, f), n), e
}

// sigmoid32 returns 1/(1+e^-x).
func sigmoid32(x float32) float32 {
	num, e := sigmoidParts(x, 1)
	return num / (1 + e)
}

// silu32 returns x*sigmoid(x).
func silu32(x float32) float32 {
	num, e := sigmoidParts(x, x)
	return num / (1 + e)
}

// erfcTail returns f exp(-(t2h+t2l)) z Q(z-1/2) with z = 1/(1+k a): with
// f = 1 the erfc in the tails of erf (k = 1/2, a = t, t2 = t^2,
// Q = erfcPoly), with f = -a/2 the negative tail of the GELU (k = geluZk,
// a = |x|, t2 = x^2/2, Q = geluErfcPoly).
func erfcTail(q []float32, k, a, t2h, t2l, f float32) float32 {
	return expMul(-t2h, -t2l, f*erfcZQ(q, k, a))
}

// erfcZQ returns erfcTail's z Q(z-1/2), z = 1/(1+k a).
func erfcZQ(q []float32, k, a float32) float32 {
	// z = 1/(1+k a) as zh+zl: d+dl = 1+k a, then one Newton step on the
	// quotient. zq = z Q(z-1/2) is then zh Q(uh) + zl (Q(uh) + zh Q'(uh))
	// with Q' approximated by its first two terms, and zh Q(uh) summed as
	// zh q[0] + zh (Q(uh) - q[0]) so that Q(uh) is never rounded.
	d := fma32(k, a, 1)
	dl := fma32(k, a, 1-d)
	z0 := 1 / d
	r := fma32(-dl, z0, fma32(-d, z0, 1))
	zh := fma32(z0, r, z0)
	zl := fma32(z0, r, z0-zh)
	u := zh - 0.5
	w := fma32(horner(q[2:], u), u, q[1]) // Q(u) - q[0]
	p := w + q[0]
	dp := fma32(2*q[3], u, q[2])
	return fma32(zh, q[0], fma32(zh, w, zl*fma32(zh, dp, p)))
}

// erf32 returns the error function of x.
func erf32(x float32) float32 {
	a := abs32(x)
	if a < erfSmall {
		u := x * x
		s := fma32(horner(erfPoly[2:], u), u, erfPoly[1])
		return fma32(x, erfPoly[0], x*s)
	}
	if isNaN32(a) {
		return x
	}
	ac := min(a, erfClamp)
	u := ac * ac
	ul := fma32(ac, ac, -u)
	return copysign32(1-erfcTail(erfcPoly[:], 0.5, ac, u, ul, 1), x)
}

// geluPhiIntervals is the number of intervals of the geluPhi table.
const geluPhiIntervals = 32

// geluPhi32 returns x Phi(x) for |x| < geluPhiMax from the piecewise
// polynomial geluPhi: the interval j = floor(4x + 16), then Phi as
// c0 + v P(v) in v = 4x - (j - 15.5), the constant split in two, and the
// product with x rounded once: x c0hi + x (c0lo + v P(v)).
func geluPhi32(x float32) float32 {
	c0, w := geluPhiTerms(x)
	return fma32(x, c0, x*w)
}

// geluPhiTerms returns Phi(x) for |x| < geluPhiMax from the geluPhi table
// as c0 + w: the interval's constant c0hi and the rest, c0lo + v P(v).
func geluPhiTerms(x float32) (c0, w float32) {
	j := int32(fma32(x, 4, 16))
	v := fma32(x, 4, -(float32(j) - 15.5))
	c := func(k int) float32 { return geluPhi[k*geluPhiIntervals+int(j)] }
	p := c(7)
	for k := 6; k >= 2; k-- {
		p = fma32(p, v, c(k))
	}
	return c(0), fma32(p, v, c(1))
}

// geluErf32 returns x/2 (1 + erf(x/sqrt 2)): x Phi(x) from a table for
// |x| < geluPhiMax (geluPhi32), elsewhere max(x, 0) - |x|/2 erfc(|x|/sqrt 2)
// (no cancellation for x < 0, and for x >= 0 the subtraction is exact: the
// result is between x/2 and x).
func geluErf32(x float32) float32 {
	if abs32(x) < geluPhiMax {
		return geluPhi32(x)
	}
	if isNaN32(x) {
		return x
	}
	if math.IsInf(float64(x), -1) {
		return float32(math.NaN())
	}
	ac := min(abs32(x), geluClamp)
	u := ac * ac
	ul := fma32(ac, ac, -u)
	return max(x, 0) + erfcTail(geluErfcPoly[:], geluZk, ac, 0.5*u, 0.5*ul, -0.5*ac)
}

// twoSum returns s+e = a+b exactly.
func twoSum(a, b float32) (s, e float32) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// geluTanh32 returns x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), computed
// as x*sigmoid(v) with v = x (c1 + c2 x^2) in double-float arithmetic so that
// the far negative tail keeps its relative accuracy.
func geluTanh32(x float32) float32 {
	if isNaN32(x) {
		return x
	}
	// With a = |x| (clamped: beyond 30 the sigmoid is 0 or 1), -|v| =
	// -a (c1 + c2 a^2) is carried as vh + vl. At x = -Inf the scaled
	// numerator below is -Inf + Inf = NaN, like the contract's formula.
	a := min(abs32(x), geluTanhClamp)
	t, n := expParts(geluTanhArg(a))
	e := ldexp(t+1, n)
	num := x
	if x < 0 {
		num = ldexp(fma32(t, x, x), n)
	}
	return num / (1 + e)
}

// geluTanhArg returns -a (c1 + c2 a^2), the tanh GELU's sigmoid argument
// at x = -a (a >= 0), as vh + vl.
func geluTanhArg(a float32) (vh, vl float32) {
	ph := a * a
	pl := fma32(a, a, -ph)
	ah := float32(geluC2Hi * ph) // rounded: twoSum needs ah as a float32, not fused with its sum
	al := fma32(geluC2Hi, ph, -ah) + fma32(geluC2Hi, pl, geluC2Lo*ph)
	sh, sl := twoSum(geluC1Hi, ah)
	sl += al + geluC1Lo
	p := a * sh
	vh = -p
	vl = fma32(-a, sl, fma32(-a, sh, p))
	return vh, vl
}

// The GELUs' derivatives g satisfy g(-a) = 1 - g(a), and g(-a), a = |x|,
// has no cancellation but at the derivative's zero (x near -0.75): both
// kernels compute y = g(-|x|) and return y for x < 0, 1 - y otherwise.

// geluPhiGrad32 returns Phi(x) + x phi(x) for |x| < geluPhiMax: Phi as
// c0 + w from the geluPhi table (geluPhi32's steps) and x phi(x) =
// (x/sqrt(2 pi)) exp(-x^2/2), the argument and x/sqrt(2 pi) as pairs,
// summed as c0 + (w + x phi) (near the derivative's zero,
// where x phi is about -c0, the last sum is exact).
func geluPhiGrad32(x float32) float32 {
	c0, w := geluPhiTerms(x)
	// x/sqrt(2 pi) = f + fl; with exp(-x^2/2) = (1+t) 2^n, x phi is
	// 2^n (f + t f + fl), dropping t fl (below 2^-24 of the result).
	u := x * x
	ul := fma32(x, x, -u)
	f := x * invSqrt2PiHi
	fl := fma32(x, invSqrt2PiLo, fma32(x, invSqrt2PiHi, -f))
	t, n := expParts(-0.5*u, -0.5*ul)
	xphi := ldexp(fma32(t, f, f)+fl, n)
	return c0 + (w + xphi)
}

// geluErfGrad32 returns Phi(x) + x phi(x), the exact GELU's derivative:
// from the geluPhi table for |x| < geluPhiMax (geluPhiGrad32), elsewhere
// with a = |x|, g(-a) = erfc(a/sqrt 2)/2 - a phi(a) = exp(-a^2/2)
// (zq/2 - a/sqrt(2 pi)) with the erfc form's z Q (geluErfcPoly), the
// exponential's argument in double-float and the product rounded once.
func geluErfGrad32(x float32) float32 {
	if abs32(x) < geluPhiMax {
		return geluPhiGrad32(x)
	}
	ac := min(abs32(x), geluClamp)
	u := ac * ac
	ul := fma32(ac, ac, -u)
	zq := erfcZQ(geluErfcPoly[:], geluZk, ac)
	b := fma32(-ac, invSqrt2PiHi, fma32(-ac, invSqrt2PiLo, 0.5*zq))
	y := expMul(-0.5*u, -0.5*ul, b)
	if x < 0 {
		return y
	}
	return 1 - y
}

// geluTanhGrad32 returns the tanh GELU's derivative s + x s (1-s) v' with
// s = sigmoid(v), v = x (c1 + c2 x^2): with a = |x|, e = exp(-v(a)) and
// d = 1 + e, g(-a) = e (d - a v'(a)) / d^2, the product with e rounded once
// (from exp's parts, so that it does not underflow early).
func geluTanhGrad32(x float32) float32 {
	a := min(abs32(x), geluTanhClamp)
	t, n := expParts(geluTanhArg(a))
	d := 1 + ldexp(t+1, n)
	f := fma32(-a, fma32(geluC2x3*a, a, geluC1Hi), d)
	y := ldexp(fma32(t, f, f), n) / (d * d)
	if x < 0 {
		return y
	}
	return 1 - y
}

// sincos32 returns sin(x) (cos false) or cos(x) (cos true).
func sincos32(x float32, cos bool) float32 {
	if !(abs32(x) <= trigMax) {
		if cos {
			return float32(math.Cos(float64(x)))
		}
		return float32(math.Sin(float64(x)))
	}
	n := float32(math.RoundToEven(float64(x * twoOverPi)))
	q := int32(n)
	r := fma32(-n, pio2A, x)
	r = fma32(-n, pio2B, r)
	r = fma32(-n, pio2C, r)
	r2 := r * r
	s := fma32(r*r2, horner(sinPoly[:], r2), r)
	c := fma32(r2*r2, horner(cosPoly[:], r2), fma32(-0.5, r2, 1))
	if cos {
		q++
	}
	y := s
	if q&1 != 0 {
		y = c
	}
	if q&2 != 0 {
		y = -y
	}
	return y
}
