package main

import "math"

// The intervals below match the range reductions in the kernels (see
// cpu/internal/vec/doc.go): each is the reduced range widened slightly.

// series sums c[k] x^k.
func series(x float64, c ...float64) float64 {
	s := 0.0
	for k := len(c) - 1; k >= 0; k-- {
		s = s*x + c[k]
	}
	return s
}

// fact returns n!.
func fact(n int) float64 {
	f := 1.0
	for i := 2; i <= n; i++ {
		f *= float64(i)
	}
	return f
}

// inverse-factorial series coefficients 1/(start+k)!, sign alternating every
// step when alt, for k = 0..n-1, taken with step stride in the factorial index.
func invFact(start, stride, n int, alt bool) []float64 {
	c := make([]float64, n)
	for k := range c {
		c[k] = 1 / fact(start+stride*k)
		if alt && k%2 == 1 {
			c[k] = -c[k]
		}
	}
	return c
}

func problems() []problem {
	sqrt2 := math.Sqrt2
	return []problem{
		{
			name: "expPoly", a: -0.35, b: 0.35, deg: 4,
			u: func(t float64) float64 { return t },
			g: func(t float64) float64 {
				if math.Abs(t) < 0.05 {
					return series(t, invFact(2, 1, 12, false)...)
				}
				return (math.Expm1(t) - t) / (t * t)
			},
			w: func(t float64) float64 { return t * t / math.Exp(t) },
		},
		{
			name: "logPoly", a: math.Sqrt(0.5) - 1 - 0.002, b: math.Sqrt2 - 1 + 0.002, deg: 7,
			u: func(t float64) float64 { return t },
			g: func(t float64) float64 {
				if math.Abs(t) < 0.05 {
					c := make([]float64, 14)
					for k := range c {
						c[k] = 1 / float64(k+3)
						if k%2 == 1 {
							c[k] = -c[k]
						}
					}
					return series(t, c...)
				}
				return (math.Log1p(t) - t + t*t/2) / (t * t * t)
			},
			w: func(t float64) float64 {
				if t == 0 {
					return 0
				}
				return t * t * t / math.Log1p(t)
			},
		},
		{
			name: "erfPoly", a: 0, b: 0.875, deg: 5, c0: 2 / math.SqrtPi,
			u: func(t float64) float64 { return t * t },
			g: func(t float64) float64 {
				if t == 0 {
					return 2 / math.SqrtPi
				}
				return math.Erf(t) / t
			},
			w: func(t float64) float64 {
				if t == 0 {
					return math.SqrtPi / 2
				}
				return t / math.Erf(t)
			},
		},
		{
			// erfc(t) = exp(-t^2) z Q(z-1/2) with z = 1/(1+t/2).
			name: "erfcPoly", a: 0.49, b: 10.6, deg: 9, split0: true,
			u: func(t float64) float64 { return 1/(1+t/2) - 0.5 },
			g: func(t float64) float64 { return math.Erfc(t) * math.Exp(t*t) * (1 + t/2) },
			w: func(t float64) float64 { return 1 / (math.Erfc(t) * math.Exp(t*t) * (1 + t/2)) },
		},
		{
			// erfc(a/sqrt 2) = exp(-a^2/2) z Q(z-1/2) with z = 1/(1+k a), k the
			// float32 nearest 1/(2 sqrt 2): the exact GELU, in terms of a = |x|.
			name: "geluErfcPoly", a: 0, b: 15.1, deg: 10, split0: true,
			u: func(t float64) float64 { return 1/(1+float64(float32(0.5/sqrt2))*t) - 0.5 },
			g: func(t float64) float64 {
				return math.Erfc(t/sqrt2) * math.Exp(t*t/2) * (1 + float64(float32(0.5/sqrt2))*t)
			},
			w: func(t float64) float64 {
				return 1 / (math.Erfc(t/sqrt2) * math.Exp(t*t/2) * (1 + float64(float32(0.5/sqrt2))*t))
			},
		},
		{
			name: "sinPoly", a: 0, b: math.Pi/4 + 0.001, deg: 3,
			u: func(t float64) float64 { return t * t },
			g: func(t float64) float64 {
				if t < 0.05 {
					c := invFact(3, 2, 8, true)
					for k := range c {
						c[k] = -c[k]
					}
					return series(t*t, c...)
				}
				return (math.Sin(t) - t) / (t * t * t)
			},
			w: func(t float64) float64 {
				if t == 0 {
					return 0
				}
				return t * t * t / math.Sin(t)
			},
		},
		{
			name: "cosPoly", a: 0, b: math.Pi/4 + 0.001, deg: 2,
			u: func(t float64) float64 { return t * t },
			g: func(t float64) float64 {
				if t < 0.05 {
					return series(t*t, invFact(4, 2, 8, true)...)
				}
				return (math.Cos(t) - 1 + t*t/2) / (t * t * t * t)
			},
			w: func(t float64) float64 { return t * t * t * t / math.Cos(t) },
		},
	}
}
