// reduce.wgsl: reductions with a fused prologue and epilogue
// (device.ReduceKernel). reduce_wg runs one workgroup per output (a strided
// pass per invocation, then a tree in workgroup memory); reduce_thread runs
// one invocation per output (for short reductions).
//
// A long reduction with few outputs is split in two launches:
// reduce_partial runs P workgroups per output, each reducing one chunk of
// the values into a partial result (value bits, position) in a scratch
// buffer; reduce_final then runs one workgroup per output over its P
// partials and the epilogue.
//
// params: [0] n, the number of outputs; [1] the prologue block (space
// OutShape ++ RedShape; returns the value to reduce); [2] the epilogue block
// (space OutShape; acc: the result); [4] the device.ReduceOp; [5] R, the
// number of values reduced per output; split launches only: [6] the scratch
// descriptor (rank 0), [7] P, the partials per output, [8] the chunk size.

const RED_SUM: u32 = 0u;
const RED_PROD: u32 = 1u;
const RED_MAX: u32 = 2u;
const RED_MIN: u32 = 3u;
const RED_ARGMAX: u32 = 4u;
const RED_ARGMIN: u32 = 5u;

// RED_NONE marks a partial result that has seen no value.
const RED_NONE: u32 = 0xffffffffu;

// RedVal is a partial result: a value and, for the extrema, its position.
struct RedVal {
    v: f32,
    i: u32,
}

var<workgroup> red_v: array<f32, 256>;
var<workgroup> red_i: array<u32, 256>;

fn red_identity(op: u32) -> RedVal {
    switch op {
        case 0u: { return RedVal(0.0, RED_NONE); }
        case 1u: { return RedVal(1.0, RED_NONE); }
        case 2u, 4u: { return RedVal(-f32_inf(), RED_NONE); }
        default: { return RedVal(f32_inf(), RED_NONE); }
    }
}

// red_better reports whether a is the extreme over b: a NaN beats numbers,
// then the larger (max) or smaller (min) value, then the first position.
fn red_better(op: u32, a: RedVal, b: RedVal) -> bool {
    if (b.i == RED_NONE) {
        return a.i != RED_NONE;
    }
    if (a.i == RED_NONE) {
        return false;
    }
    let na = is_nan(a.v);
    let nb = is_nan(b.v);
    if (na || nb) {
        if (na && nb) {
            return a.i < b.i;
        }
        return na;
    }
    if (a.v != b.v) {
        if (op == RED_MAX || op == RED_ARGMAX) {
            return a.v > b.v;
        }
        return a.v < b.v;
    }
    return a.i < b.i;
}

// red_step combines two partial results.
fn red_step(op: u32, a: RedVal, b: RedVal) -> RedVal {
    switch op {
        case 0u: { return RedVal(a.v + b.v, RED_NONE); }
        case 1u: { return RedVal(a.v * b.v, RED_NONE); }
        default: {
            if (red_better(op, b, a)) {
                return b;
            }
            return a;
        }
    }
}

// red_finish runs the epilogue of output o on a final partial result.
fn red_finish(op: u32, o: u32, a: RedVal) {
    if (op == RED_ARGMAX || op == RED_ARGMIN) {
        reduce_epilogue(o, select(a.i, 0u, a.i == RED_NONE));
    } else {
        reduce_epilogue(o, bitcast<u32>(a.v));
    }
}

// red_tree combines the workgroup's partial results; invocation 0 gets the
// total. Call it in uniform control flow.
fn red_tree(op: u32, li: u32, acc: RedVal) -> RedVal {
    red_v[li] = acc.v;
    red_i[li] = acc.i;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s >> 1u) {
        if (li < s) {
            let c = red_step(op, RedVal(red_v[li], red_i[li]), RedVal(red_v[li + s], red_i[li + s]));
            red_v[li] = c.v;
            red_i[li] = c.i;
        }
        workgroupBarrier();
    }
    return RedVal(red_v[0], red_i[0]);
}

@compute @workgroup_size(256)
fn reduce_wg(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let o = linear_workgroup(wid, nwg);
    if (o >= params[H_N]) {
        return;
    }
    let op = params[4u];
    let n = params[5u];
    var acc = red_identity(op);
    for (var r = li; r < n; r = r + WG) {
        acc = red_step(op, acc, RedVal(reduce_prologue(o * n + r), r));
    }
    let total = red_tree(op, li, acc);
    if (li == 0u) {
        red_finish(op, o, total);
    }
}

@compute @workgroup_size(256)
fn reduce_partial(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let w = linear_workgroup(wid, nwg);
    let parts = params[7u];
    let o = w / parts;
    if (o >= params[H_N]) {
        return;
    }
    let op = params[4u];
    let n = params[5u];
    let lo = (w % parts) * params[8u];
    let hi = min(lo + params[8u], n);
    var acc = red_identity(op);
    for (var r = lo + li; r < hi; r = r + WG) {
        acc = red_step(op, acc, RedVal(reduce_prologue(o * n + r), r));
    }
    let total = red_tree(op, li, acc);
    if (li == 0u) {
        let sd = params[6u];
        let e = params[sd + VD_OFFSET] + 2u * w;
        st(view_binding(sd), e, bitcast<u32>(total.v));
        st(view_binding(sd), e + 1u, total.i);
    }
}

@compute @workgroup_size(256)
fn reduce_final(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let o = linear_workgroup(wid, nwg);
    if (o >= params[H_N]) {
        return;
    }
    let op = params[4u];
    let parts = params[7u];
    let sd = params[6u];
    let sb = view_binding(sd);
    let base = params[sd + VD_OFFSET] + 2u * o * parts;
    var acc = red_identity(op);
    for (var c = li; c < parts; c = c + WG) {
        acc = red_step(op, acc, RedVal(bitcast<f32>(ld(sb, base + 2u * c)), ld(sb, base + 2u * c + 1u)));
    }
    let total = red_tree(op, li, acc);
    if (li == 0u) {
        red_finish(op, o, total);
    }
}

@compute @workgroup_size(256)
fn reduce_thread(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let o = invocation(wid, nwg, li);
    if (o >= params[H_N]) {
        return;
    }
    let op = params[4u];
    let n = params[5u];
    var acc = red_identity(op);
    for (var r = 0u; r < n; r = r + 1u) {
        acc = red_step(op, acc, RedVal(reduce_prologue(o * n + r), r));
    }
    red_finish(op, o, acc);
}
