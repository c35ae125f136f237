// ops.cuh: the scalar semantics of the program ops (device.Op) for CUDA,
// mirroring the Go definitions of tensor/device's op table, dtype.go and
// random.go, as shaders/ops.wgsl does for WGSL. Generated kernels (see
// cuda/render.go) start with this file and call op_<name> for every op of
// arity one or more, where <name> is the op's name in the op table; a test
// checks that this file defines exactly those, one overload per argument
// type the op's type rule accepts. The file needs no CUDA header: NVRTC,
// clang (-nocudainc, with __device__ and __global__ defined as attributes)
// and the test double's host C++ compiler all accept it.

#ifndef SF_OPS_CUH
#define SF_OPS_CUH

// SF_FN marks a device helper; generated code inlines them all.
#define SF_FN static __device__ inline

// SF_SPEC marks an explicit specialization, which takes no storage class.
#define SF_SPEC __device__ inline

// SF_MATH names a libm-style float function: NVRTC has the CUDA math API
// built in, clang without CUDA's headers calls libdevice's __nv_ functions
// directly, and the host compiler (the test double) uses <math.h>.
#if defined(__CUDACC_RTC__)
#define SF_MATH(f) f
#elif defined(__CUDA__)
#define SF_MATH(f) __nv_##f
extern "C" {
__device__ float __nv_expf(float);
__device__ float __nv_logf(float);
__device__ float __nv_log1pf(float);
__device__ float __nv_sqrtf(float);
__device__ float __nv_sinf(float);
__device__ float __nv_cosf(float);
__device__ float __nv_tanhf(float);
__device__ float __nv_erff(float);
__device__ float __nv_erfcf(float);
__device__ float __nv_powf(float, float);
__device__ float __nv_floorf(float);
__device__ float __nv_ceilf(float);
__device__ float __nv_fmaf(float, float, float);
__device__ float __nv_expm1f(float);
__device__ float __nv_log2f(float);
__device__ float __nv_sinhf(float);
__device__ float __nv_coshf(float);
__device__ float __nv_atanf(float);
__device__ float __nv_asinf(float);
__device__ float __nv_acosf(float);
__device__ float __nv_rintf(float);
__device__ float __nv_truncf(float);
__device__ float __nv_atan2f(float, float);
__device__ float __nv_fmodf(float, float);
__device__ double __nv_exp(double);
__device__ double __nv_log(double);
__device__ double __nv_log1p(double);
__device__ double __nv_sqrt(double);
__device__ double __nv_sin(double);
__device__ double __nv_cos(double);
__device__ double __nv_tanh(double);
__device__ double __nv_erf(double);
__device__ double __nv_erfc(double);
__device__ double __nv_pow(double, double);
__device__ double __nv_floor(double);
__device__ double __nv_ceil(double);
__device__ double __nv_fma(double, double, double);
__device__ double __nv_expm1(double);
__device__ double __nv_log2(double);
__device__ double __nv_sinh(double);
__device__ double __nv_cosh(double);
__device__ double __nv_atan(double);
__device__ double __nv_asin(double);
__device__ double __nv_acos(double);
__device__ double __nv_rint(double);
__device__ double __nv_trunc(double);
__device__ double __nv_atan2(double, double);
__device__ double __nv_fmod(double, double);
}
#else
#include <math.h>
#define SF_MATH(f) f
#endif

// SF_CHECK(ptr, bytes) lets the test double check that every access of a
// generated kernel lies inside an allocation; on a GPU it is nothing.
#ifndef SF_CHECK
#define SF_CHECK(ptr, bytes) ((void)0)
#endif

// ---- bits (unions: the one reinterpretation all three compilers accept) ----

SF_FN unsigned sf_f32_bits(float x) {
	union {
		float f;
		unsigned u;
	} v;
	v.f = x;
	return v.u;
}

SF_FN float sf_bits_f32(unsigned x) {
	union {
		float f;
		unsigned u;
	} v;
	v.u = x;
	return v.f;
}

SF_FN double sf_bits_f64(unsigned long long x) {
	union {
		double f;
		unsigned long long u;
	} v;
	v.u = x;
	return v.f;
}

SF_FN bool sf_is_nan(float x) { return (sf_f32_bits(x) & 0x7fffffffu) > 0x7f800000u; }
SF_FN bool sf_is_inf(float x) { return (sf_f32_bits(x) & 0x7fffffffu) == 0x7f800000u; }
SF_FN float sf_inf(void) { return sf_bits_f32(0x7f800000u); }
SF_FN float sf_nan(void) { return sf_bits_f32(0x7fc00000u); }

// ---- storage types (device.Float16ToFloat32, Float32ToFloat16, bfloat16) ----

SF_FN float sf_f16_to_f32(unsigned h) {
	unsigned sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
	if (e == 0x1fu) {
		return sf_bits_f32(sign | 0x7f800000u | (m << 13));
	}
	if (e == 0u) {
		float f = (float)m * (1.0f / 16777216.0f);
		return sign ? -f : f;
	}
	return sf_bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

// sf_f32_to_f16 rounds to nearest even; overflow gives infinity and NaN
// stays a quiet NaN.
SF_FN unsigned sf_f32_to_f16(float f) {
	unsigned b = sf_f32_bits(f);
	unsigned sign = (b >> 16) & 0x8000u, e = (b >> 23) & 0xffu, m = b & 0x7fffffu;
	if (e == 0xffu) {
		return m ? (sign | 0x7e00u) : (sign | 0x7c00u);
	}
	if (e > 142u) {
		return sign | 0x7c00u;
	}
	if (e < 102u) {
		return sign;
	}
	if (e < 113u) {
		unsigned mm = m | 0x800000u, shift = 126u - e;
		unsigned half = mm >> shift, rem = mm & ((1u << shift) - 1u), mid = 1u << (shift - 1u);
		if (rem > mid || (rem == mid && (half & 1u))) {
			half++;
		}
		return sign | half;
	}
	unsigned half = ((e - 112u) << 10) | (m >> 13), rem = m & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) {
		half++; // may carry into the exponent, which is the correct rounding
	}
	return sign | half;
}

SF_FN float sf_bf16_to_f32(unsigned h) { return sf_bits_f32(h << 16); }

SF_FN unsigned sf_f32_to_bf16(float f) {
	unsigned b = sf_f32_bits(f);
	if ((b & 0x7fffffffu) > 0x7f800000u) {
		return (b >> 16) | 0x40u;
	}
	return (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
}

// ---- view access: element e of a buffer at address a, by dtype ----

SF_FN float sf_ld_f32(unsigned long long a, long long e) {
	SF_CHECK((const float *)a + e, 4);
	return ((const float *)a)[e];
}
SF_FN float sf_ld_f16(unsigned long long a, long long e) {
	SF_CHECK((const unsigned short *)a + e, 2);
	return sf_f16_to_f32(((const unsigned short *)a)[e]);
}
SF_FN float sf_ld_bf16(unsigned long long a, long long e) {
	SF_CHECK((const unsigned short *)a + e, 2);
	return sf_bf16_to_f32(((const unsigned short *)a)[e]);
}
SF_FN int sf_ld_i32(unsigned long long a, long long e) {
	SF_CHECK((const int *)a + e, 4);
	return ((const int *)a)[e];
}
SF_FN bool sf_ld_bool(unsigned long long a, long long e) {
	SF_CHECK((const unsigned char *)a + e, 1);
	return ((const unsigned char *)a)[e] != 0;
}

SF_FN void sf_st_f32(unsigned long long a, long long e, float v) {
	SF_CHECK((float *)a + e, 4);
	((float *)a)[e] = v;
}
SF_FN void sf_st_f16(unsigned long long a, long long e, float v) {
	SF_CHECK((unsigned short *)a + e, 2);
	((unsigned short *)a)[e] = (unsigned short)sf_f32_to_f16(v);
}
SF_FN void sf_st_bf16(unsigned long long a, long long e, float v) {
	SF_CHECK((unsigned short *)a + e, 2);
	((unsigned short *)a)[e] = (unsigned short)sf_f32_to_bf16(v);
}
SF_FN void sf_st_i32(unsigned long long a, long long e, int v) {
	SF_CHECK((int *)a + e, 4);
	((int *)a)[e] = v;
}
SF_FN void sf_st_bool(unsigned long long a, long long e, bool v) {
	SF_CHECK((unsigned char *)a + e, 1);
	((unsigned char *)a)[e] = v ? 1 : 0;
}

// Int64 and Float64 load and store as themselves; Uint8 and Int8 load as
// int and store its low byte (device.StoreInt32).
SF_FN long long sf_ld_i64(unsigned long long a, long long e) {
	SF_CHECK((const long long *)a + e, 8);
	return ((const long long *)a)[e];
}
SF_FN double sf_ld_f64(unsigned long long a, long long e) {
	SF_CHECK((const double *)a + e, 8);
	return ((const double *)a)[e];
}
SF_FN int sf_ld_u8(unsigned long long a, long long e) {
	SF_CHECK((const unsigned char *)a + e, 1);
	return (int)((const unsigned char *)a)[e];
}
SF_FN int sf_ld_i8(unsigned long long a, long long e) {
	SF_CHECK((const signed char *)a + e, 1);
	return (int)((const signed char *)a)[e];
}
SF_FN void sf_st_i64(unsigned long long a, long long e, long long v) {
	SF_CHECK((long long *)a + e, 8);
	((long long *)a)[e] = v;
}
SF_FN void sf_st_f64(unsigned long long a, long long e, double v) {
	SF_CHECK((double *)a + e, 8);
	((double *)a)[e] = v;
}
SF_FN void sf_st_u8(unsigned long long a, long long e, int v) {
	SF_CHECK((unsigned char *)a + e, 1);
	((unsigned char *)a)[e] = (unsigned char)(unsigned)v;
}
SF_FN void sf_st_i8(unsigned long long a, long long e, int v) {
	SF_CHECK((unsigned char *)a + e, 1);
	((unsigned char *)a)[e] = (unsigned char)(unsigned)v;
}

// ---- random numbers (device.Hash32, RandomBits, Uniform, Normal) ----

SF_FN unsigned sf_pcg_hash(unsigned x) {
	unsigned state = x * 747796405u + 2891336453u;
	unsigned word = ((state >> ((state >> 28) + 4u)) ^ state) * 277803737u;
	return (word >> 22) ^ word;
}

SF_FN unsigned sf_random_bits(unsigned key, unsigned c) { return sf_pcg_hash(sf_pcg_hash(c ^ key) + key); }

SF_FN float sf_rand_uniform(unsigned key, unsigned i) {
	return (float)(sf_random_bits(key, 2u * i) >> 8) * (1.0f / 16777216.0f);
}

SF_FN float sf_rand_normal(unsigned key, unsigned i) {
	float u1 = ((float)(sf_random_bits(key, 2u * i) >> 8) + 1.0f) * (1.0f / 16777216.0f);
	float u2 = (float)(sf_random_bits(key, 2u * i + 1u) >> 8) * (1.0f / 16777216.0f);
	float l = -2.0f * SF_MATH(logf)(u1);
	return SF_MATH(sqrtf)(l > 0.0f ? l : 0.0f) * SF_MATH(cosf)(6.283185307179586f * u2);
}

// ---- float unary ops ----

SF_FN float op_neg(float x) { return -x; }
SF_FN float op_abs(float x) { return sf_bits_f32(sf_f32_bits(x) & 0x7fffffffu); }
SF_FN float op_sign(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x); }
SF_FN float op_exp(float x) { return SF_MATH(expf)(x); }
SF_FN float op_log(float x) { return SF_MATH(logf)(x); }
SF_FN float op_sqrt(float x) { return SF_MATH(sqrtf)(x); }
SF_FN float op_rsqrt(float x) { return 1.0f / SF_MATH(sqrtf)(x); }
SF_FN float op_recip(float x) { return 1.0f / x; }
SF_FN float op_sin(float x) { return SF_MATH(sinf)(x); }
SF_FN float op_cos(float x) { return SF_MATH(cosf)(x); }
SF_FN float op_tanh(float x) { return SF_MATH(tanhf)(x); }

// op_sigmoid is stable for large |x|: e^-x never overflows where it is used.
SF_FN float op_sigmoid(float x) {
	if (x >= 0.0f) {
		return 1.0f / (1.0f + SF_MATH(expf)(-x));
	}
	float e = SF_MATH(expf)(x);
	return e / (1.0f + e);
}

SF_FN float op_relu(float x) { return (x > 0.0f || sf_is_nan(x)) ? x : 0.0f; }
SF_FN float op_erf(float x) { return SF_MATH(erff)(x); }

// The activations below give NaN at -Inf, like their definitions (-Inf
// times zero) and PyTorch.
SF_FN float op_gelu_erf(float x) {
	if (sf_is_inf(x)) {
		return x > 0.0f ? x : sf_nan();
	}
	return 0.5f * x * SF_MATH(erfcf)(-x * 0.70710678118654752f);
}

// op_gelu_tanh uses 0.5*(1+tanh(z)) = sigmoid(2z), accurate where 1+tanh(z)
// would cancel.
SF_FN float op_gelu_tanh(float x) {
	if (sf_is_inf(x)) {
		return x > 0.0f ? x : sf_nan();
	}
	float z = 0.79788456080286536f * (x + 0.044715f * x * x * x);
	return x * op_sigmoid(2.0f * z);
}

// The GELUs' derivatives g satisfy g(-a) = 1 - g(a): both compute
// y = g(-|x|), which has no 1 - Phi or 1 + tanh to cancel, and return y for
// x < 0 and 1 - y otherwise; beyond |x| = 30 they are 0 or 1 (Inf
// included, where the formulas would give Inf times 0; NaN passes through).

// op_gelu_erf_grad is Phi(x) + x phi(x): g(-a) = erfc(a/sqrt 2)/2 - a phi(a).
SF_FN float op_gelu_erf_grad(float x) {
	float a = op_abs(x);
	if (a > 30.0f) {
		return x > 0.0f ? 1.0f : 0.0f;
	}
	float y = 0.5f * SF_MATH(erfcf)(a * 0.70710678118654752f) - a * 0.39894228040143268f * SF_MATH(expf)(-0.5f * a * a);
	return x < 0.0f ? y : 1.0f - y;
}

// op_gelu_tanh_grad is s + x s (1-s) v' with s = sigmoid(v), v = 2 sqrt(2/pi)
// (x + 0.044715 x^3): with e = exp(-v(a)), d = 1 + e, g(-a) = e (d - a v'(a)) / d^2.
SF_FN float op_gelu_tanh_grad(float x) {
	float a = op_abs(x);
	if (a > 30.0f) {
		return x > 0.0f ? 1.0f : 0.0f;
	}
	float e = SF_MATH(expf)(-1.5957691216057308f * a * (1.0f + 0.044715f * a * a));
	float d = 1.0f + e;
	float y = e * (d - a * 1.5957691216057308f * (1.0f + 0.134145f * a * a)) / (d * d);
	return x < 0.0f ? y : 1.0f - y;
}

SF_FN float op_silu(float x) {
	if (sf_is_inf(x)) {
		return x > 0.0f ? x : sf_nan();
	}
	return x * op_sigmoid(x);
}

// op_softplus is log(1 + e^x) as max(x, 0) + log1p(e^-|x|), which cannot
// overflow.
SF_FN float op_softplus(float x) {
	if (sf_is_nan(x)) {
		return x;
	}
	return (x > 0.0f ? x : 0.0f) + SF_MATH(log1pf)(SF_MATH(expf)(-op_abs(x)));
}

// op_round_f16 and op_round_bf16 round through the conversions stores use.
SF_FN float op_round_f16(float x) { return sf_f16_to_f32(sf_f32_to_f16(x)); }
SF_FN float op_round_bf16(float x) { return sf_bf16_to_f32(sf_f32_to_bf16(x)); }

// sf_f32_odd narrows x to float rounded to odd (device.Float32RoundedToOdd):
// rounding that on to float16 or bfloat16 rounds x once, as the double
// overloads below do (through a nearest float they would round twice).
SF_FN float sf_f32_odd(double x) {
	float f = (float)x;
	if (x != x || (double)f == x) {
		return f;
	}
	unsigned b = sf_f32_bits(f);
	if (sf_is_inf(f) || (x > 0 ? (double)f > x : (double)f < x)) {
		b--; // toward zero: one below in magnitude (infinity becomes the largest finite value)
	}
	return sf_bits_f32(b | 1u);
}
SF_FN double op_round_f16(double x) { return (double)sf_f16_to_f32(sf_f32_to_f16(sf_f32_odd(x))); }
SF_FN double op_round_bf16(double x) { return (double)sf_bf16_to_f32(sf_f32_to_bf16(sf_f32_odd(x))); }
SF_FN float op_floor(float x) { return SF_MATH(floorf)(x); }
SF_FN float op_ceil(float x) { return SF_MATH(ceilf)(x); }
SF_FN float op_log1p(float x) { return SF_MATH(log1pf)(x); }
SF_FN float op_expm1(float x) { return SF_MATH(expm1f)(x); }
SF_FN float op_log2(float x) { return SF_MATH(log2f)(x); }
SF_FN float op_sinh(float x) { return SF_MATH(sinhf)(x); }
SF_FN float op_cosh(float x) { return SF_MATH(coshf)(x); }
SF_FN float op_atan(float x) { return SF_MATH(atanf)(x); }
SF_FN float op_asin(float x) { return SF_MATH(asinf)(x); }
SF_FN float op_acos(float x) { return SF_MATH(acosf)(x); }
// op_round rounds halves to even (rintf in the default rounding mode).
SF_FN float op_round(float x) { return SF_MATH(rintf)(x); }
SF_FN float op_trunc(float x) { return SF_MATH(truncf)(x); }
SF_FN bool op_is_nan(float x) { return sf_is_nan(x); }

// ---- float binary and ternary ops ----

SF_FN float op_add(float a, float b) { return a + b; }
SF_FN float op_sub(float a, float b) { return a - b; }
SF_FN float op_mul(float a, float b) { return a * b; }
SF_FN float op_div(float a, float b) { return a / b; }

// op_pow is C's powf, whose special cases are Go's math.Pow's.
SF_FN float op_pow(float a, float b) { return SF_MATH(powf)(a, b); }

// op_max and op_min propagate a NaN in either operand.
SF_FN float op_max(float a, float b) { return (sf_is_nan(a) || a > b) ? a : b; }
SF_FN float op_min(float a, float b) { return (sf_is_nan(a) || a < b) ? a : b; }
SF_FN float op_atan2(float y, float x) { return SF_MATH(atan2f)(y, x); }
// op_fmod is C's fmod, exact, with the sign of a.
SF_FN float op_fmod(float a, float b) { return SF_MATH(fmodf)(a, b); }
SF_FN float op_fma(float a, float b, float c) { return SF_MATH(fmaf)(a, b, c); }

// ---- integer ops: wrapping (through unsigned, as signed overflow is
// undefined in C++); Div is floor division with x/0 = 0 ----

SF_FN int op_neg(int x) { return (int)(0u - (unsigned)x); }
SF_FN int op_abs(int x) { return x < 0 ? op_neg(x) : x; }
SF_FN int op_sign(int x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
SF_FN int op_add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
SF_FN int op_sub(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
SF_FN int op_mul(int a, int b) { return (int)((unsigned)a * (unsigned)b); }

SF_FN int op_div(int a, int b) {
	if (b == 0) {
		return 0;
	}
	if (b == -1) {
		return op_neg(a);
	}
	int q = a / b;
	if (a - q * b != 0 && ((a < 0) != (b < 0))) {
		return q - 1;
	}
	return q;
}

SF_FN int op_max(int a, int b) { return a > b ? a : b; }
SF_FN int op_min(int a, int b) { return a < b ? a : b; }

// ---- float64 ops (device.UnaryF64, BinaryF64): the math functions in
// double precision ----

SF_FN bool sf_is_nan(double x) { return x != x; }
SF_FN double op_neg(double x) { return -x; }
SF_FN double op_abs(double x) { return x < 0.0 ? -x : (x == 0.0 ? 0.0 : x); }
SF_FN double op_sign(double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : x); }
SF_FN double op_exp(double x) { return SF_MATH(exp)(x); }
SF_FN double op_log(double x) { return SF_MATH(log)(x); }
SF_FN double op_sqrt(double x) { return SF_MATH(sqrt)(x); }
SF_FN double op_rsqrt(double x) { return 1.0 / SF_MATH(sqrt)(x); }
SF_FN double op_recip(double x) { return 1.0 / x; }
SF_FN double op_sin(double x) { return SF_MATH(sin)(x); }
SF_FN double op_cos(double x) { return SF_MATH(cos)(x); }
SF_FN double op_tanh(double x) { return SF_MATH(tanh)(x); }
SF_FN double op_sigmoid(double x) {
	if (x >= 0.0) {
		return 1.0 / (1.0 + SF_MATH(exp)(-x));
	}
	double e = SF_MATH(exp)(x);
	return e / (1.0 + e);
}
SF_FN double op_relu(double x) { return (x > 0.0 || x != x) ? x : 0.0; }
SF_FN double op_erf(double x) { return SF_MATH(erf)(x); }
SF_FN double op_gelu_erf(double x) { return 0.5 * x * (1.0 + SF_MATH(erf)(x * 0.70710678118654752)); }
SF_FN double op_gelu_tanh(double x) {
	return 0.5 * x * (1.0 + SF_MATH(tanh)(0.79788456080286536 * (x + 0.044715 * x * x * x)));
}
// The GELUs' derivatives as in the float versions above; the tanh form
// through sigmoids, s + x v' s sigmoid(-v), as the op table defines it.
SF_FN double op_gelu_erf_grad(double x) {
	double a = op_abs(x);
	if (a > 40.0) {
		return x > 0.0 ? 1.0 : 0.0;
	}
	double y = 0.5 * SF_MATH(erfc)(a * 0.70710678118654752) - a * 0.39894228040143268 * SF_MATH(exp)(-0.5 * a * a);
	return x < 0.0 ? y : 1.0 - y;
}
SF_FN double op_gelu_tanh_grad(double x) {
	if (op_abs(x) > 40.0) {
		return x > 0.0 ? 1.0 : 0.0;
	}
	double v = 1.5957691216057308 * (x + 0.044715 * x * x * x);
	double s = op_sigmoid(v);
	return s + x * 1.5957691216057308 * (1.0 + 0.134145 * x * x) * s * op_sigmoid(-v);
}
SF_FN double op_silu(double x) { return x * op_sigmoid(x); }
SF_FN double op_softplus(double x) {
	if (x != x) {
		return x;
	}
	return (x > 0.0 ? x : 0.0) + SF_MATH(log1p)(SF_MATH(exp)(-op_abs(x)));
}
SF_FN double op_floor(double x) { return SF_MATH(floor)(x); }
SF_FN double op_ceil(double x) { return SF_MATH(ceil)(x); }
SF_FN double op_log1p(double x) { return SF_MATH(log1p)(x); }
SF_FN double op_expm1(double x) { return SF_MATH(expm1)(x); }
SF_FN double op_log2(double x) { return SF_MATH(log2)(x); }
SF_FN double op_sinh(double x) { return SF_MATH(sinh)(x); }
SF_FN double op_cosh(double x) { return SF_MATH(cosh)(x); }
SF_FN double op_atan(double x) { return SF_MATH(atan)(x); }
SF_FN double op_asin(double x) { return SF_MATH(asin)(x); }
SF_FN double op_acos(double x) { return SF_MATH(acos)(x); }
SF_FN double op_round(double x) { return SF_MATH(rint)(x); }
SF_FN double op_trunc(double x) { return SF_MATH(trunc)(x); }
SF_FN bool op_is_nan(double x) { return x != x; }
SF_FN double op_add(double a, double b) { return a + b; }
SF_FN double op_sub(double a, double b) { return a - b; }
SF_FN double op_mul(double a, double b) { return a * b; }
SF_FN double op_div(double a, double b) { return a / b; }
SF_FN double op_pow(double a, double b) { return SF_MATH(pow)(a, b); }
SF_FN double op_max(double a, double b) { return (a != a || a > b) ? a : b; }
SF_FN double op_min(double a, double b) { return (a != a || a < b) ? a : b; }
SF_FN double op_atan2(double y, double x) { return SF_MATH(atan2)(y, x); }
SF_FN double op_fmod(double a, double b) { return SF_MATH(fmod)(a, b); }
SF_FN double op_fma(double a, double b, double c) { return SF_MATH(fma)(a, b, c); }

// ---- int64 ops (device.UnaryI64, BinaryI64): wrapping, floor Div ----

SF_FN long long op_neg(long long x) { return (long long)(0ull - (unsigned long long)x); }
SF_FN long long op_abs(long long x) { return x < 0 ? op_neg(x) : x; }
SF_FN long long op_sign(long long x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
SF_FN long long op_add(long long a, long long b) { return (long long)((unsigned long long)a + (unsigned long long)b); }
SF_FN long long op_sub(long long a, long long b) { return (long long)((unsigned long long)a - (unsigned long long)b); }
SF_FN long long op_mul(long long a, long long b) { return (long long)((unsigned long long)a * (unsigned long long)b); }
SF_FN long long op_div(long long a, long long b) {
	if (b == 0) {
		return 0;
	}
	if (b == -1) {
		return op_neg(a);
	}
	long long q = a / b;
	if (a - q * b != 0 && ((a < 0) != (b < 0))) {
		return q - 1;
	}
	return q;
}
SF_FN long long op_max(long long a, long long b) { return a > b ? a : b; }
SF_FN long long op_min(long long a, long long b) { return a < b ? a : b; }

// ---- comparisons (false with NaN except ne) ----

SF_FN bool op_eq(float a, float b) { return a == b; }
SF_FN bool op_eq(int a, int b) { return a == b; }
SF_FN bool op_ne(float a, float b) { return !(a == b); }
SF_FN bool op_ne(int a, int b) { return a != b; }
SF_FN bool op_lt(float a, float b) { return a < b; }
SF_FN bool op_lt(int a, int b) { return a < b; }
SF_FN bool op_le(float a, float b) { return a <= b; }
SF_FN bool op_le(int a, int b) { return a <= b; }
SF_FN bool op_gt(float a, float b) { return a > b; }
SF_FN bool op_gt(int a, int b) { return a > b; }
SF_FN bool op_ge(float a, float b) { return a >= b; }
SF_FN bool op_ge(int a, int b) { return a >= b; }
SF_FN bool op_eq(double a, double b) { return a == b; }
SF_FN bool op_eq(long long a, long long b) { return a == b; }
SF_FN bool op_ne(double a, double b) { return !(a == b); }
SF_FN bool op_ne(long long a, long long b) { return a != b; }
SF_FN bool op_lt(double a, double b) { return a < b; }
SF_FN bool op_lt(long long a, long long b) { return a < b; }
SF_FN bool op_le(double a, double b) { return a <= b; }
SF_FN bool op_le(long long a, long long b) { return a <= b; }
SF_FN bool op_gt(double a, double b) { return a > b; }
SF_FN bool op_gt(long long a, long long b) { return a > b; }
SF_FN bool op_ge(double a, double b) { return a >= b; }
SF_FN bool op_ge(long long a, long long b) { return a >= b; }

// ---- logic and selection ----

SF_FN bool op_not(bool x) { return !x; }
SF_FN bool op_and(bool a, bool b) { return a && b; }
SF_FN bool op_or(bool a, bool b) { return a || b; }

template <typename T> SF_FN T op_where(bool c, T a, T b) { return c ? a : b; }

// ---- casts: op_cast<To>(x); float to int is device.FloatToInt32
// (truncation, NaN to 0, saturation), a number to bool is x != 0 (NaN is
// true), bool to a number is 0 or 1 ----

template <typename To, typename From> SF_FN To op_cast(From x) { return (To)x; }

template <> SF_SPEC int op_cast<int, float>(float x) {
	if (sf_is_nan(x)) {
		return 0;
	}
	if (x >= 2147483647.0f) {
		return 2147483647;
	}
	if (x <= -2147483648.0f) {
		return -2147483647 - 1;
	}
	return (int)x;
}

template <> SF_SPEC bool op_cast<bool, float>(float x) { return x != 0.0f || sf_is_nan(x); }
template <> SF_SPEC bool op_cast<bool, int>(int x) { return x != 0; }

// Casts of the wide types: float64 to int32 and floats to int64 saturate
// (device.Float64ToInt32, FloatToInt64), int64 to int32 keeps the low 32
// bits, as PyTorch's does.
template <> SF_SPEC int op_cast<int, double>(double x) {
	if (x != x) {
		return 0;
	}
	if (x >= 2147483647.0) {
		return 2147483647;
	}
	if (x <= -2147483648.0) {
		return -2147483647 - 1;
	}
	return (int)x;
}
template <> SF_SPEC long long op_cast<long long, double>(double x) {
	if (x != x) {
		return 0;
	}
	if (x >= 9223372036854775807.0) {
		return 9223372036854775807ll;
	}
	if (x <= -9223372036854775808.0) {
		return -9223372036854775807ll - 1;
	}
	return (long long)x;
}
template <> SF_SPEC long long op_cast<long long, float>(float x) { return op_cast<long long, double>((double)x); }
template <> SF_SPEC int op_cast<int, long long>(long long x) { return (int)(unsigned)(unsigned long long)x; }
template <> SF_SPEC bool op_cast<bool, double>(double x) { return x != 0.0 || x != x; }
template <> SF_SPEC bool op_cast<bool, long long>(long long x) { return x != 0; }

#endif
