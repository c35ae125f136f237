// softmax.wgsl: the row kernels over the last dimension: softmax or
// log-softmax (device.SoftmaxKernel) and its gradient, and layer
// normalization (device.NormalizeKernel) and its gradient, each in one
// launch. Softmax: each row is normalized by tpr
// invocations of one workgroup (a power of two; short rows share a
// workgroup, 256/tpr rows each). Every invocation folds its elements of
// the row into a running maximum and sum of exp(x - maximum), a tree in
// workgroup memory combines the row's invocations' pairs, and they then
// write their elements. A row of at most SM_CACHE/(256/tpr) elements is
// read once (kept in workgroup memory in between); a longer one is read a
// second time by the writing loop.
//
// NaN and infinity never reach the float arithmetic: each element's bits
// classify it first (WGSL, and Vulkan without SignedZeroInfNanPreserve, let
// a compiler assume neither occurs). As in PyTorch, a row holding a NaN or
// +Inf, or only -Inf, gives NaN everywhere; a -Inf in a row with a finite
// maximum gives 0 (softmax) or -Inf (log-softmax).
//
// params: [0] n, the number of rows; [4] L, the row length; [5] 1 for
// log-softmax, 0 for softmax; [6] r, the rank of the rows' (coalesced)
// shape; [7] tpr, the invocations per row; [9] offset of that shape (r words); [10] In descriptor (rank r+1:
// the rows' strides, then the stride along a row; never flagged
// contiguous); [11] Out descriptor (rank 0, contiguous: row i starts at
// its offset + i*L).

// SM_CACHE is the row elements a workgroup keeps in workgroup memory,
// shared equally by its rows: 12 KiB, which with the tree's 2 KiB stays
// within WebGPU's guaranteed 16 KiB.
const SM_CACHE: u32 = 3072u;

var<workgroup> sm_row: array<f32, 3072>;
var<workgroup> sm_max: array<f32, 256>;
var<workgroup> sm_sum: array<f32, 256>;

// SmAcc is a partial result over some elements of a row: m, their finite
// maximum, and s, the sum of exp(x - m) over their finite elements. s == 0
// means no finite element yet (none, or only -Inf); s < 0 marks a NaN or
// +Inf among them.
struct SmAcc {
    m: f32,
    s: f32,
}

const SM_NEG_INF_BITS: u32 = 0xff800000u;

// sm_exp is exp of a finite d <= 0, or of -Inf from an overflowing d.
fn sm_exp(d: f32) -> f32 {
    return exp(max(d, -104.0));
}

// sm_add folds element x into a.
fn sm_add(a: SmAcc, x: f32) -> SmAcc {
    let b = bitcast<u32>(x);
    if ((b & 0x7fffffffu) >= 0x7f800000u) {
        if (b == SM_NEG_INF_BITS) {
            return a;
        }
        return SmAcc(0.0, -1.0);
    }
    if (a.s < 0.0) {
        return a;
    }
    if (a.s == 0.0) {
        return SmAcc(x, 1.0);
    }
    if (x > a.m) {
        return SmAcc(x, a.s * sm_exp(a.m - x) + 1.0);
    }
    return SmAcc(a.m, a.s + sm_exp(x - a.m));
}

// sm_combine combines two partial results.
fn sm_combine(a: SmAcc, b: SmAcc) -> SmAcc {
    if (a.s < 0.0 || b.s < 0.0) {
        return SmAcc(0.0, -1.0);
    }
    if (a.s == 0.0) {
        return b;
    }
    if (b.s == 0.0) {
        return a;
    }
    let m = max(a.m, b.m);
    return SmAcc(m, a.s * sm_exp(a.m - m) + b.s * sm_exp(b.m - m));
}

// sm_value is the result for element x of a row whose total is t.
fn sm_value(t: SmAcc, x: f32, lg: bool) -> f32 {
    if (t.s <= 0.0) {
        return f32_nan();
    }
    if (bitcast<u32>(x) == SM_NEG_INF_BITS) {
        return select(0.0, -f32_inf(), lg);
    }
    let d = x - t.m;
    if (lg) {
        return d - log(t.s);
    }
    return sm_exp(d) / t.s;
}

@compute @workgroup_size(256)
fn softmax_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let rows = params[H_N];
    let tpr = params[7u];
    let per = WG / tpr;
    let first = linear_workgroup(wid, nwg) * per;
    if (first >= rows) {
        return;
    }
    let seg = li / tpr;
    let lane = li % tpr;
    let row = first + seg;
    // Invocations of rows past the last (in the last workgroup) loop over
    // nothing but take part in the barriers.
    let n = select(0u, params[4u], row < rows);
    let lg = params[5u] != 0u;
    let r = params[6u];
    let id = params[10u];
    let od = params[11u];
    let ib = view_binding(id);
    let start = view_elem(id, params[9u], r, row);
    let step = params[id + VD_STRIDES + r];
    let room = SM_CACHE / per;
    let cache = seg * room;
    let cached = n <= room;
    var acc = SmAcc(0.0, 0.0);
    for (var j = lane; j < n; j = j + tpr) {
        let x = bitcast<f32>(ld(ib, start + j * step));
        if (cached) {
            sm_row[cache + j] = x;
        }
        acc = sm_add(acc, x);
    }
    sm_max[li] = acc.m;
    sm_sum[li] = acc.s;
    workgroupBarrier();
    for (var s = tpr / 2u; s > 0u; s = s >> 1u) {
        if (lane < s) {
            let c = sm_combine(SmAcc(sm_max[li], sm_sum[li]), SmAcc(sm_max[li + s], sm_sum[li + s]));
            sm_max[li] = c.m;
            sm_sum[li] = c.s;
        }
        workgroupBarrier();
    }
    let head = seg * tpr;
    let t = SmAcc(sm_max[head], sm_sum[head]);
    let ob = view_binding(od);
    let out = params[od + VD_OFFSET] + row * n;
    for (var j = lane; j < n; j = j + tpr) {
        var x: f32;
        if (cached) {
            x = sm_row[cache + j];
        } else {
            x = bitcast<f32>(ld(ib, start + j * step));
        }
        st(ob, out + j, bitcast<u32>(sm_value(t, x, lg)));
    }
}

// sm_grad_value is the input gradient of one element of a row: y its
// output, g the output's gradient, s the row's sum (of g*y, or with log of
// g). The ops.wgsl functions keep IEEE's NaN and infinity cases.
fn sm_grad_value(y: f32, g: f32, s: f32, lg: bool) -> f32 {
    if (lg) {
        return op_sub(g, op_mul(op_exp(y), s));
    }
    return op_mul(y, op_sub(g, s));
}

// softmax_backward_rows computes the gradient of a softmax row's input
// (device.SoftmaxBackwardKernel): y*(g - sum(g*y)), or with log
// g - exp(y)*sum(g), rows shared by invocations as softmax_rows does; rows
// of at most SM_CACHE/2/(256/tpr) elements keep y and g in workgroup memory
// and are read once, longer ones twice. params as softmax_rows with [10] the Y descriptor and
// [12] the G descriptor (rank r+1 each, over the same rows' shape).
@compute @workgroup_size(256)
fn softmax_backward_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let rows = params[H_N];
    let tpr = params[7u];
    let per = WG / tpr;
    let first = linear_workgroup(wid, nwg) * per;
    if (first >= rows) {
        return;
    }
    let seg = li / tpr;
    let lane = li % tpr;
    let row = first + seg;
    let n = select(0u, params[4u], row < rows);
    let lg = params[5u] != 0u;
    let r = params[6u];
    let yd = params[10u];
    let od = params[11u];
    let gd = params[12u];
    let yb = view_binding(yd);
    let gb = view_binding(gd);
    let ystart = view_elem(yd, params[9u], r, row);
    let ystep = params[yd + VD_STRIDES + r];
    let gstart = view_elem(gd, params[9u], r, row);
    let gstep = params[gd + VD_STRIDES + r];
    let room = SM_CACHE / 2u / per;
    let cache = seg * 2u * room;
    let cached = n <= room;
    var acc = 0.0;
    for (var j = lane; j < n; j = j + tpr) {
        let y = bitcast<f32>(ld(yb, ystart + j * ystep));
        let g = bitcast<f32>(ld(gb, gstart + j * gstep));
        if (cached) {
            sm_row[cache + j] = y;
            sm_row[cache + room + j] = g;
        }
        acc = op_add(acc, select(op_mul(g, y), g, lg));
    }
    let total = row_sum2(li, lane, tpr, vec2<f32>(acc, 0.0)).x;
    let ob = view_binding(od);
    let out = params[od + VD_OFFSET] + row * n;
    for (var j = lane; j < n; j = j + tpr) {
        var y: f32;
        var g: f32;
        if (cached) {
            y = sm_row[cache + j];
            g = sm_row[cache + room + j];
        } else {
            y = bitcast<f32>(ld(yb, ystart + j * ystep));
            g = bitcast<f32>(ld(gb, gstart + j * gstep));
        }
        st(ob, out + j, bitcast<u32>(sm_grad_value(y, g, total, lg)));
    }
}

// row_sum2 returns the sums of a over the tpr invocations of each row (lane
// the invocation's index among them, li in the workgroup): a tree in
// workgroup memory with ops.wgsl's NaN- and infinity-exact add. Every
// invocation of the workgroup calls it (it holds barriers).
fn row_sum2(li: u32, lane: u32, tpr: u32, a: vec2<f32>) -> vec2<f32> {
    sm_sum[li] = a.x;
    sm_max[li] = a.y;
    workgroupBarrier();
    for (var s = tpr / 2u; s > 0u; s = s >> 1u) {
        if (lane < s) {
            sm_sum[li] = op_add(sm_sum[li], sm_sum[li + s]);
            sm_max[li] = op_add(sm_max[li], sm_max[li + s]);
        }
        workgroupBarrier();
    }
    let t = vec2<f32>(sm_sum[li - lane], sm_max[li - lane]);
    // Every invocation reads its row's total before the next tree writes.
    workgroupBarrier();
    return t;
}

// row_max_bits returns the largest of b over the tpr invocations of each
// row, as row_sum2 sums (b are bit patterns, kept in sm_max's words).
fn row_max_bits(li: u32, lane: u32, tpr: u32, b: u32) -> u32 {
    sm_max[li] = bitcast<f32>(b);
    workgroupBarrier();
    for (var s = tpr / 2u; s > 0u; s = s >> 1u) {
        if (lane < s) {
            sm_max[li] = bitcast<f32>(max(bitcast<u32>(sm_max[li]), bitcast<u32>(sm_max[li + s])));
        }
        workgroupBarrier();
    }
    let t = bitcast<u32>(sm_max[li - lane]);
    workgroupBarrier();
    return t;
}

// row_load is a row's element: at c in the row cache when the row is kept
// there, else word a of binding b.
fn row_load(cached: bool, c: u32, b: u32, a: u32) -> f32 {
    if (cached) {
        return sm_row[c];
    }
    return bitcast<f32>(ld(b, a));
}

// nm_scale is the power of two that brings a row whose largest magnitude
// has the bits big (finite) to [1, 4): the row's moments are taken of x
// times it, so that neither sums nor squares overflow or underflow, and
// the scaling is exact.
fn nm_scale(big: u32) -> f32 {
    let e = big >> 23u;
    return bitcast<f32>(clamp(254u - e, 1u, 254u) << 23u);
}

// nm_rstd returns, for a row scaled by s (nm_scale) whose scaled variance
// is v, the factor that takes its scaled deviations to x̂, and the row's
// 1/sqrt(var + eps) (Inf where var and eps are 0). Both are
// 1/sqrt(v + eps·s²) of the scaled row (times s for the second) unless
// eps·s² overflows (a row of tiny values) or the sum is 0 (a constant row,
// eps·s² underflowed or eps 0): then they come from 1/sqrt(v/s² + eps).
fn nm_rstd(v: f32, eps: f32, s: f32) -> vec2<f32> {
    let t = v + eps * s * s;
    let tb = bitcast<u32>(t);
    if (tb != 0u && tb < INF_BITS) {
        let r = 1.0 / sqrt(t);
        return vec2<f32>(r, op_mul(r, s));
    }
    let rs = op_div(1.0, sqrt(v / s / s + eps));
    return vec2<f32>(op_div(rs, s), rs);
}

// normalize_row normalizes (grad false: device.NormalizeKernel) the rows
// of X, or computes their gradient from G (grad true:
// device.NormalizeBackwardKernel), rows shared by invocations as
// softmax_rows does; X (and G) of rows of at most SM_CACHE/(256/tpr)
// elements (with G half that) are kept in workgroup memory and read once.
// Each invocation's elements are scaled by nm_scale and shifted by the
// row's first element k (so that a constant row's deviations are exactly
// 0 and a large mean costs no precision), summed, and the sums combined by
// row_sum2: the mean, then the variance as the mean of squared deviations
// from it. A row of X holding NaN or ±Inf (its bits, taken first) gives
// NaN everywhere; NaN and infinity in G follow IEEE through ops.wgsl.
// params as softmax_rows with [5] eps (float32 bits), [10] the X (or In)
// descriptor and [12] the G descriptor.
fn normalize_row(wid: vec3<u32>, nwg: vec3<u32>, li: u32, grad: bool) {
    let rows = params[H_N];
    let tpr = params[7u];
    let per = WG / tpr;
    let first = linear_workgroup(wid, nwg) * per;
    if (first >= rows) {
        return;
    }
    let seg = li / tpr;
    let lane = li % tpr;
    let row = first + seg;
    // Invocations of rows past the last loop over nothing but take part in
    // the trees' barriers.
    let n = select(0u, params[4u], row < rows);
    let eps = bitcast<f32>(params[5u]);
    let r = params[6u];
    let xd = params[10u];
    let od = params[11u];
    let xb = view_binding(xd);
    let xstart = view_elem(xd, params[9u], r, row);
    let xstep = params[xd + VD_STRIDES + r];
    var gb = 0u;
    var gstart = 0u;
    var gstep = 0u;
    if (grad) {
        let gd = params[12u];
        gb = view_binding(gd);
        gstart = view_elem(gd, params[9u], r, row);
        gstep = params[gd + VD_STRIDES + r];
    }
    let slots = select(1u, 2u, grad);
    let room = SM_CACHE / slots / per;
    let cache = seg * slots * room;
    let gcache = cache + room;
    let cached = n <= room;
    // The largest magnitude's bits; infinity's for a NaN or ±Inf.
    var big = 0u;
    for (var j = lane; j < n; j = j + tpr) {
        let x = bitcast<f32>(ld(xb, xstart + j * xstep));
        if (cached) {
            sm_row[cache + j] = x;
            if (grad) {
                sm_row[gcache + j] = bitcast<f32>(ld(gb, gstart + j * gstep));
            }
        }
        big = max(big, min(bitcast<u32>(x) & 0x7fffffffu, INF_BITS));
    }
    big = row_max_bits(li, lane, tpr, big);
    let bad = big >= INF_BITS;
    let s = nm_scale(big);
    var k = 0.0;
    if (n > 0u) {
        k = row_load(cached, cache, xb, xstart) * s;
    }
    let nf = f32(max(n, 1u));
    // The mean (and the sum of G).
    var acc = vec2<f32>(0.0, 0.0);
    for (var j = lane; j < n; j = j + tpr) {
        acc.x = acc.x + (row_load(cached, cache + j, xb, xstart + j * xstep) * s - k);
        if (grad) {
            acc.y = op_add(acc.y, row_load(cached, gcache + j, gb, gstart + j * gstep));
        }
    }
    let sums = row_sum2(li, lane, tpr, acc);
    let mean = sums.x / nf;
    let mean_g = op_div(sums.y, nf);
    // The variance.
    var sq = 0.0;
    for (var j = lane; j < n; j = j + tpr) {
        let d = row_load(cached, cache + j, xb, xstart + j * xstep) * s - k - mean;
        sq = sq + d * d;
    }
    let v = row_sum2(li, lane, tpr, vec2<f32>(sq, 0.0)).x / nf;
    let nr = nm_rstd(v, eps, s);
    let rstd = nr.x;
    let rs = nr.y;
    let ob = view_binding(od);
    let out = params[od + VD_OFFSET] + row * n;
    if (!grad) {
        for (var j = lane; j < n; j = j + tpr) {
            let d = row_load(cached, cache + j, xb, xstart + j * xstep) * s - k - mean;
            st(ob, out + j, bitcast<u32>(select(op_mul(d, rstd), f32_nan(), bad)));
        }
        return;
    }
    // The mean of g·x̂.
    var gx = 0.0;
    for (var j = lane; j < n; j = j + tpr) {
        let d = row_load(cached, cache + j, xb, xstart + j * xstep) * s - k - mean;
        let g = row_load(cached, gcache + j, gb, gstart + j * gstep);
        gx = op_add(gx, op_mul(g, op_mul(d, rstd)));
    }
    let mean_gx = op_div(row_sum2(li, lane, tpr, vec2<f32>(gx, 0.0)).x, nf);
    for (var j = lane; j < n; j = j + tpr) {
        let d = row_load(cached, cache + j, xb, xstart + j * xstep) * s - k - mean;
        let g = row_load(cached, gcache + j, gb, gstart + j * gstep);
        let v = op_mul(op_sub(op_sub(g, op_mul(op_mul(d, rstd), mean_gx)), mean_g), rs);
        st(ob, out + j, bitcast<u32>(select(v, f32_nan(), bad)));
    }
}

@compute @workgroup_size(256)
fn normalize_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    normalize_row(wid, nwg, li, false);
}

@compute @workgroup_size(256)
fn normalize_backward_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    normalize_row(wid, nwg, li, true);
}
