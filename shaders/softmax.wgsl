// softmax.wgsl: softmax or log-softmax over the rows of the last dimension
// (device.SoftmaxKernel), in one launch: each row is normalized by tpr
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
    sm_sum[li] = acc;
    workgroupBarrier();
    for (var s = tpr / 2u; s > 0u; s = s >> 1u) {
        if (lane < s) {
            sm_sum[li] = op_add(sm_sum[li], sm_sum[li + s]);
        }
        workgroupBarrier();
    }
    let total = sm_sum[seg * tpr];
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
