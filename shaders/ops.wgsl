// ops.wgsl: the scalar semantics of the program ops (device.Op), mirroring
// the Go definitions of tensor/device's op table and random.go. Generated
// hook code calls the op_* functions: each is the GPU function an op's row
// names, and a test checks that this file defines exactly those.

// ---- random numbers (device.Hash32, RandomBits, Uniform, Normal) ----

fn pcg_hash(x: u32) -> u32 {
    let state = x * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

fn random_bits(key: u32, c: u32) -> u32 {
    return pcg_hash(pcg_hash(c ^ key) + key);
}

fn rand_uniform(key: u32, i: u32) -> f32 {
    return f32(random_bits(key, 2u * i) >> 8u) * (1.0 / 16777216.0);
}

fn rand_normal(key: u32, i: u32) -> f32 {
    let u1 = (f32(random_bits(key, 2u * i) >> 8u) + 1.0) * (1.0 / 16777216.0);
    let u2 = f32(random_bits(key, 2u * i + 1u) >> 8u) * (1.0 / 16777216.0);
    // A GPU's log may return a tiny positive value for u1 just below 1
    // (WGSL allows an absolute error of 2^-21 there): clamp, or sqrt gives NaN.
    return sqrt(max(-2.0 * log(u1), 0.0)) * cos(6.283185307179586 * u2);
}

// ---- float unary ops ----

fn op_neg(x: f32) -> f32 { return -x; }

fn op_abs(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) & 0x7fffffffu); }

fn op_sign(x: f32) -> f32 {
    if (x > 0.0) {
        return 1.0;
    }
    if (x < 0.0) {
        return -1.0;
    }
    return x;
}

fn op_exp(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (x > 88.72284) {
        return f32_inf();
    }
    if (x < -103.98) {
        return 0.0;
    }
    return exp(x);
}

fn op_log(x: f32) -> f32 {
    if (x == 0.0) {
        return -f32_inf();
    }
    if (x < 0.0) {
        return f32_nan();
    }
    if (is_nan(x) || is_inf(x)) {
        return x;
    }
    return log(x);
}

fn op_sqrt(x: f32) -> f32 {
    if (x < 0.0) {
        return f32_nan();
    }
    return sqrt(x);
}

fn op_rsqrt(x: f32) -> f32 { return 1.0 / op_sqrt(x); }

fn op_recip(x: f32) -> f32 { return 1.0 / x; }

fn op_sin(x: f32) -> f32 { return sin(x); }

fn op_cos(x: f32) -> f32 { return cos(x); }

fn op_tanh(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    return tanh(clamp(x, -10.0, 10.0));
}

fn op_sigmoid(x: f32) -> f32 {
    if (x >= 0.0) {
        return 1.0 / (1.0 + exp(-x));
    }
    let e = op_exp(x);
    return e / (1.0 + e);
}

fn op_relu(x: f32) -> f32 { return select(0.0, x, x > 0.0 || is_nan(x)); }

// erfc_pos is erfc(z) for z >= 0 (Numerical Recipes' erfcc, fractional error
// below 1.2e-7).
fn erfc_pos(z: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.5 * z);
    let p = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806
        + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
    return t * exp(-z * z + p);
}

fn erfc_f32(x: f32) -> f32 {
    if (x >= 0.0) {
        return erfc_pos(x);
    }
    return 2.0 - erfc_pos(-x);
}

fn op_erf(x: f32) -> f32 {
    let a = op_abs(x);
    if (a < 0.5) {
        // Taylor series of erf about 0: x * 2/sqrt(pi) * sum (-x^2)^n / (n! (2n+1)).
        let z = x * x;
        return x * (1.1283791670955126 + z * (-0.37612638903183752 + z * (0.11283791670955126
            + z * (-0.026866170645131252 + z * (0.0052239776254421878 + z * (-0.00085483270234508528
            + z * 0.00012055332981789664))))));
    }
    if (is_nan(x)) {
        return x;
    }
    let r = 1.0 - erfc_pos(a);
    return select(r, -r, x < 0.0);
}

// The activations below give NaN at -Inf, like their definitions
// (-Inf times zero) and PyTorch.
fn op_gelu_erf(x: f32) -> f32 {
    if (is_inf(x)) {
        return select(f32_nan(), x, x > 0.0);
    }
    return 0.5 * x * erfc_f32(-x * 0.70710678118654752);
}

// op_gelu_tanh uses 0.5*(1+tanh(z)) = sigmoid(2z), which is accurate where
// 1+tanh(z) would cancel.
fn op_gelu_tanh(x: f32) -> f32 {
    if (is_inf(x)) {
        return select(f32_nan(), x, x > 0.0);
    }
    let z = 0.79788456080286536 * (x + 0.044715 * x * x * x);
    return x * op_sigmoid(2.0 * z);
}

// The GELUs' derivatives g satisfy g(-a) = 1 - g(a): both compute
// y = g(-|x|), which has no 1 - Phi or 1 + tanh to cancel, and return y for
// x < 0 and 1 - y otherwise; beyond |x| = 30 they are 0 or 1 (Inf
// included, where the formulas would give Inf times 0).

// op_gelu_erf_grad is Phi(x) + x phi(x): g(-a) = erfc(a/sqrt 2)/2 - a phi(a).
fn op_gelu_erf_grad(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let a = op_abs(x);
    if (a > 30.0) {
        return select(0.0, 1.0, x > 0.0);
    }
    let y = 0.5 * erfc_pos(a * 0.70710678118654752) - a * 0.39894228040143268 * exp(-0.5 * a * a);
    return select(1.0 - y, y, x < 0.0);
}

// op_gelu_tanh_grad is s + x s (1-s) v' with s = sigmoid(v), v = 2 sqrt(2/pi)
// (x + 0.044715 x^3): with e = exp(-v(a)), d = 1 + e, g(-a) = e (d - a v'(a)) / d^2.
fn op_gelu_tanh_grad(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let a = op_abs(x);
    if (a > 30.0) {
        return select(0.0, 1.0, x > 0.0);
    }
    let e = exp(-1.5957691216057308 * a * (1.0 + 0.044715 * a * a));
    let d = 1.0 + e;
    let y = e * (d - a * 1.5957691216057308 * (1.0 + 0.134145 * a * a)) / (d * d);
    return select(1.0 - y, y, x < 0.0);
}

fn op_silu(x: f32) -> f32 {
    if (is_inf(x)) {
        return select(f32_nan(), x, x > 0.0);
    }
    return x * op_sigmoid(x);
}

// op_softplus is log(1 + e^x) as max(x, 0) + log1p(e^-|x|), with log1p from
// its series where 1 + t would round t away.
fn op_softplus(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let t = op_exp(-op_abs(x));
    var l = log(1.0 + t);
    if (t < 0.0078125) {
        l = t * (1.0 - t * (0.5 - t * (0.33333333 - t * 0.25)));
    }
    return max(x, 0.0) + l;
}

// op_round_f16 and op_round_bf16 round to the storage types through the
// conversions that stores use (device.OpRoundF16, OpRoundBF16).
fn op_round_f16(x: f32) -> f32 { return f16_to_f32(f32_to_f16(x)); }

fn op_round_bf16(x: f32) -> f32 { return bitcast<f32>(f32_to_bf16(x) << 16u); }

fn op_floor(x: f32) -> f32 { return floor(x); }

fn op_ceil(x: f32) -> f32 { return ceil(x); }

// op_log1p is log(1 + x): 2·atanh(s) with s = x/(2+x) from its odd series
// where 1 + x would round x away (|x| < 1/4, |s| < 1/7), log(1 + x) elsewhere.
fn op_log1p(x: f32) -> f32 {
    if (op_abs(x) < 0.25) {
        let s = x / (2.0 + x);
        let z = s * s;
        return 2.0 * s * (1.0 + z * (0.33333333 + z * (0.2 + z * (0.14285714 + z * (0.11111111 + z * 0.09090909)))));
    }
    return op_log(1.0 + x);
}

// op_expm1 is e^x - 1: its Taylor series where e^x - 1 would cancel
// (|x| < 1/2), e^x - 1 elsewhere.
fn op_expm1(x: f32) -> f32 {
    if (op_abs(x) < 0.5) {
        return x * (1.0 + x * (0.5 + x * (0.16666667 + x * (0.041666668 + x * (0.008333334
            + x * (0.0013888889 + x * (0.0001984127 + x * (0.0000248016 + x * 0.0000027557319))))))));
    }
    return op_exp(x) - 1.0;
}

fn op_log2(x: f32) -> f32 {
    if (x == 0.0) {
        return -f32_inf();
    }
    if (x < 0.0) {
        return f32_nan();
    }
    if (is_nan(x) || is_inf(x)) {
        return x;
    }
    return log2(x);
}

// op_sinh and op_cosh take e^|x| - 1 from op_expm1 below |x| = 1, where
// e^x - e^-x cancels; e^|x| and its reciprocal up to |x| = 9; and above,
// where e^-|x| is below float32's resolution of the result, e^(|x| - ln 2),
// which overflows only where the result does: no intermediate may exceed
// the result, since a driver's compiler may reassociate products.
const SINH_LN2: f32 = 0.6931471805599453;

fn op_sinh(x: f32) -> f32 {
    let a = op_abs(x);
    var r: f32;
    if (a < 1.0) {
        let e = op_expm1(a);
        r = 0.5 * (e + e / (e + 1.0));
    } else if (a < 9.0) {
        let h = op_exp(a);
        r = 0.5 * h - 0.5 / h;
    } else {
        r = op_exp(a - SINH_LN2);
    }
    return select(r, -r, x < 0.0);
}

fn op_cosh(x: f32) -> f32 {
    let a = op_abs(x);
    if (a < 1.0) {
        let e = op_expm1(a);
        return 1.0 + 0.5 * e * e / (e + 1.0);
    }
    if (a < 9.0) {
        let h = op_exp(a);
        return 0.5 * h + 0.5 / h;
    }
    return op_exp(a - SINH_LN2);
}

// op_atan is Cephes' atanf: reduction to |x| <= tan(pi/8), then a minimax
// polynomial (about 2 ulp); WGSL's atan promises only 4096 ulp.
fn op_atan(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    var a = op_abs(x);
    var base = 0.0;
    if (a > 2.4142137) {
        base = 1.5707964;
        a = -1.0 / a;
    } else if (a > 0.41421357) {
        base = 0.78539819;
        a = (a - 1.0) / (a + 1.0);
    }
    let z = a * a;
    let r = base + ((((0.0805374449538 * z - 0.138776856032) * z + 0.199777106478) * z - 0.333329491539) * z * a + a);
    return select(r, -r, x < 0.0);
}

// op_asin and op_acos go through op_atan: asin x = atan(x/sqrt((1-x)(1+x))),
// acos x = 2·atan(sqrt((1-x)/(1+x))), whose factors are exact near ±1.
fn op_asin(x: f32) -> f32 {
    let a = op_abs(x);
    if (a > 1.0 || is_nan(x)) {
        return f32_nan();
    }
    if (a == 1.0) {
        return select(1.5707964, -1.5707964, x < 0.0);
    }
    return op_atan(x / op_sqrt((1.0 - x) * (1.0 + x)));
}

fn op_acos(x: f32) -> f32 {
    if (op_abs(x) > 1.0 || is_nan(x)) {
        return f32_nan();
    }
    if (x == -1.0) {
        return 3.1415927;
    }
    return 2.0 * op_atan(op_sqrt((1.0 - x) / (1.0 + x)));
}

// op_round rounds halves to even, as WGSL's round does.
fn op_round(x: f32) -> f32 { return round(x); }

fn op_trunc(x: f32) -> f32 { return trunc(x); }

// ---- float binary ops ----

// WGSL lets a compiler assume that no value is NaN or infinite, and so does
// Vulkan unless a module declares SignedZeroInfNanPreserve (which
// tools/spirv adds where the device has it): Mesa's compiler folds x - x
// and x + -x to 0 once it sees one value on both sides, and (x - x) * y
// with it, where IEEE gives NaN for x NaN or infinite. So add,
// sub, mul and div return the float operation only where both operands are
// finite (and the divisor is not zero), where such folds are exact, and
// take every other IEEE result from the operands' bits: integer tests,
// which no assumption about floats removes.

// add_special is a + b where a or b is NaN or infinite.
fn add_special(a: f32, b: f32) -> f32 {
    if (is_nan(a) || is_nan(b) || (is_inf(a) && is_inf(b) && bitcast<u32>(a) != bitcast<u32>(b))) {
        return f32_nan();
    }
    return select(b, a, is_inf(a));
}

fn op_add(a: f32, b: f32) -> f32 {
    if (both_finite(a, b)) {
        return a + b;
    }
    return add_special(a, b);
}

fn op_sub(a: f32, b: f32) -> f32 {
    if (both_finite(a, b)) {
        return a - b;
    }
    return add_special(a, bitcast<f32>(bitcast<u32>(b) ^ 0x80000000u));
}

fn op_mul(a: f32, b: f32) -> f32 {
    if (both_finite(a, b)) {
        return a * b;
    }
    // NaN in, or an infinity times zero: NaN; else an infinity of the sign
    // of the product.
    if (is_nan(a) || is_nan(b) || (bitcast<u32>(a) & 0x7fffffffu) == 0u || (bitcast<u32>(b) & 0x7fffffffu) == 0u) {
        return f32_nan();
    }
    return bitcast<f32>(((bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u) | INF_BITS);
}

fn op_div(a: f32, b: f32) -> f32 {
    let ma = bitcast<u32>(a) & 0x7fffffffu;
    let mb = bitcast<u32>(b) & 0x7fffffffu;
    if (ma < 0x7f800000u && mb < 0x7f800000u && mb != 0u) {
        return a / b;
    }
    // NaN in, inf/inf and 0/0: NaN; inf/y and x/0: an infinity; x/inf: a
    // zero; each with the sign of the quotient.
    if (ma > 0x7f800000u || mb > 0x7f800000u || (ma == 0x7f800000u && mb == 0x7f800000u) || (ma == 0u && mb == 0u)) {
        return f32_nan();
    }
    let sign = (bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u;
    return bitcast<f32>(sign | select(0u, INF_BITS, ma == 0x7f800000u || mb == 0u));
}

fn op_max(a: f32, b: f32) -> f32 { return select(b, a, is_nan(a) || a > b); }

fn op_min(a: f32, b: f32) -> f32 { return select(b, a, is_nan(a) || a < b); }

// op_atan2 follows Go's math.Atan2 special cases (signed zeros, infinities)
// and takes the rest from op_atan of y/x by quadrant.
fn op_atan2(y: f32, x: f32) -> f32 {
    if (is_nan(y) || is_nan(x)) {
        return f32_nan();
    }
    let neg = (bitcast<u32>(y) & 0x80000000u) != 0u;
    let xneg = (bitcast<u32>(x) & 0x80000000u) != 0u;
    var r: f32;
    if (y == 0.0) {
        r = select(0.0, 3.1415927, xneg);
    } else if (x == 0.0) {
        r = 1.5707964;
    } else if (is_inf(x)) {
        if (is_inf(y)) {
            r = select(0.78539819, 2.3561945, xneg);
        } else {
            r = select(0.0, 3.1415927, xneg);
        }
    } else if (is_inf(y)) {
        r = 1.5707964;
    } else {
        r = op_atan(op_abs(y) / op_abs(x));
        if (xneg) {
            r = 3.1415927 - r;
        }
    }
    return select(r, -r, neg);
}

// exponent_f32 is floor(log2(x)) for a finite x > 0, subnormals included.
fn exponent_f32(x: f32) -> i32 {
    if (x < 1.17549435e-38) {
        return i32((bitcast<u32>(x * 8388608.0) >> 23u) & 0xffu) - 150;
    }
    return i32((bitcast<u32>(x) >> 23u) & 0xffu) - 127;
}

// scale_f32 is x·2^k for k >= 0, exact unless it overflows, in steps of at
// most 2^127 (whose bits can be written directly).
fn scale_f32(x: f32, k: i32) -> f32 {
    var t = x;
    var j = k;
    for (var i = 0; i < 3 && j > 0; i++) {
        let s = min(j, 127);
        t = t * bitcast<f32>(u32(s + 127) << 23u);
        j = j - s;
    }
    return t;
}

// op_fmod is C's fmod, exact: |a| less the multiple of |b| below it, taken
// off as |b|·2^k for decreasing k (each subtraction is exact, since
// |b|·2^k <= r < |b|·2^(k+1)), with the sign of a.
fn op_fmod(a: f32, b: f32) -> f32 {
    if (is_nan(a) || is_nan(b) || is_inf(a) || b == 0.0) {
        return f32_nan();
    }
    var r = op_abs(a);
    let d = op_abs(b);
    for (var i = 0; i < 300 && r >= d; i++) {
        let k = exponent_f32(r) - exponent_f32(d);
        var t = scale_f32(d, k);
        if (t > r) {
            t = scale_f32(d, k - 1);
        }
        r = r - t;
    }
    return bitcast<f32>(bitcast<u32>(r) | (bitcast<u32>(a) & 0x80000000u));
}

// op_pow follows Go's math.Pow special cases.
fn op_pow(x: f32, y: f32) -> f32 {
    if (y == 0.0 || x == 1.0) {
        return 1.0;
    }
    if (y == 1.0 || is_nan(x)) {
        return x;
    }
    if (is_nan(y)) {
        return y;
    }
    if (y == 2.0) {
        return x * x;
    }
    let ax = op_abs(x);
    if (is_inf(y)) {
        if (ax == 1.0) {
            return 1.0;
        }
        return select(0.0, f32_inf(), (ax > 1.0) == (y > 0.0));
    }
    let yint = floor(y) == y;
    let yodd = yint && op_abs(y) < 16777216.0 && fract(y * 0.5) != 0.0;
    var r: f32;
    if (ax == 0.0) {
        r = select(0.0, f32_inf(), y < 0.0);
    } else if (is_inf(ax)) {
        r = select(f32_inf(), 0.0, y < 0.0);
    } else if (y == 0.5) {
        r = sqrt(ax);
    } else if (y == -1.0) {
        r = 1.0 / ax;
    } else {
        r = exp2(y * log2(ax));
    }
    if ((bitcast<u32>(x) & 0x80000000u) != 0u) {
        if (yodd) {
            return -r;
        }
        if (!yint && ax != 0.0 && !is_inf(ax)) {
            return f32_nan();
        }
    }
    return r;
}

// ---- integer ops (wrapping; Div is floor division with x/0 = 0) ----

fn op_neg_i(x: i32) -> i32 { return -x; }

fn op_abs_i(x: i32) -> i32 { return select(x, -x, x < 0); }

fn op_sign_i(x: i32) -> i32 { return select(select(0, -1, x < 0), 1, x > 0); }

fn op_div_i(a: i32, b: i32) -> i32 {
    if (b == 0) {
        return 0;
    }
    if (b == -1) {
        return -a;
    }
    let q = a / b;
    if (a - q * b != 0 && ((a < 0) != (b < 0))) {
        return q - 1;
    }
    return q;
}

// ---- casts ----

// f32_to_i32 is device.FloatToInt32: truncation toward zero, NaN to zero,
// saturating at the int32 range.
fn f32_to_i32(x: f32) -> i32 {
    if (is_nan(x)) {
        return 0;
    }
    if (x >= 2147483647.0) {
        return 2147483647;
    }
    if (x <= -2147483648.0) {
        return -2147483647 - 1;
    }
    return i32(x);
}
