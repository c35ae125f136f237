// pool.wgsl: max and average pooling, forward and backward, plain or
// adaptive (device.PoolKernel). One invocation per element written: forward
// walks the output position's window; backward gathers, for an input
// position, the gradient of every output whose window holds it (no atomics).
//
// params: [0] n, the elements written; [4] op (0 max, 1 average);
// [5] backward; [6] adaptive; [7] count_include_pad; [8] N; [9] C; [10] 1
// when Indices is bound; [11] X, [12] Out and [13] Indices view descriptors
// (rank 5); words 16..33: the window geometry (window.wgsl).

// win_start is the first input position of output y's window along d.
fn win_start(d: u32, y: u32) -> i32 {
    if (params[6u] != 0u) {
        return i32((y * geo(G_IN, d)) / geo(G_OUT, d));
    }
    return i32(y * geo(G_STRIDE, d)) - i32(geo(G_PAD, d));
}

// win_taps is the number of window taps of output y along d.
fn win_taps(d: u32, y: u32) -> u32 {
    if (params[6u] != 0u) {
        let end = ((y + 1u) * geo(G_IN, d) + geo(G_OUT, d) - 1u) / geo(G_OUT, d);
        return end - u32(win_start(d, y));
    }
    return geo(G_KERNEL, d);
}

fn win_step(d: u32) -> u32 {
    if (params[6u] != 0u) {
        return 1u;
    }
    return geo(G_DIL, d);
}

// valid_taps counts the taps of output y's window along d inside the input.
fn valid_taps(d: u32, y: u32) -> u32 {
    var c = 0u;
    let s = win_start(d, y);
    for (var t = 0u; t < win_taps(d, y); t = t + 1u) {
        if (inside(d, s + i32(t * win_step(d)))) {
            c = c + 1u;
        }
    }
    return c;
}

// avg_divisor is the divisor of output (y0, y1, y2)'s average.
fn avg_divisor(y0: u32, y1: u32, y2: u32) -> f32 {
    if (params[7u] != 0u && params[6u] == 0u) {
        return f32(geo(G_KERNEL, 0u) * geo(G_KERNEL, 1u) * geo(G_KERNEL, 2u));
    }
    return f32(valid_taps(0u, y0) * valid_taps(1u, y1) * valid_taps(2u, y2));
}

// spatial_index is the row-major position of (x0, x1, x2) in the input.
fn spatial_index(x0: u32, x1: u32, x2: u32) -> u32 {
    return (x0 * geo(G_IN, 1u) + x1) * geo(G_IN, 2u) + x2;
}

fn pool_forward(o: u32) {
    var q = o;
    let y2 = q % geo(G_OUT, 2u);
    q = q / geo(G_OUT, 2u);
    let y1 = q % geo(G_OUT, 1u);
    q = q / geo(G_OUT, 1u);
    let y0 = q % geo(G_OUT, 0u);
    q = q / geo(G_OUT, 0u);
    let c = q % params[9u];
    let b = q / params[9u];
    let xd = params[11u];
    let xb = view_binding(xd);
    let is_max = params[4u] == 0u;
    var best = -f32_inf();
    var besti = -1;
    var sum = 0.0;
    let s0 = win_start(0u, y0);
    let s1 = win_start(1u, y1);
    let s2 = win_start(2u, y2);
    for (var t0 = 0u; t0 < win_taps(0u, y0); t0 = t0 + 1u) {
        let x0 = s0 + i32(t0 * win_step(0u));
        if (!inside(0u, x0)) {
            continue;
        }
        for (var t1 = 0u; t1 < win_taps(1u, y1); t1 = t1 + 1u) {
            let x1 = s1 + i32(t1 * win_step(1u));
            if (!inside(1u, x1)) {
                continue;
            }
            for (var t2 = 0u; t2 < win_taps(2u, y2); t2 = t2 + 1u) {
                let x2 = s2 + i32(t2 * win_step(2u));
                if (!inside(2u, x2)) {
                    continue;
                }
                let v = bitcast<f32>(ld(xb, view_at5(xd, b, c, u32(x0), u32(x1), u32(x2))));
                if (is_max) {
                    if (besti < 0 || v > best || is_nan(v)) {
                        best = v;
                        besti = i32(spatial_index(u32(x0), u32(x1), u32(x2)));
                    }
                } else {
                    sum = sum + v;
                }
            }
        }
    }
    let od = params[12u];
    if (is_max) {
        st(view_binding(od), view_at5(od, b, c, y0, y1, y2), bitcast<u32>(best));
        if (params[10u] != 0u) {
            let id = params[13u];
            st(view_binding(id), view_at5(id, b, c, y0, y1, y2), bitcast<u32>(besti));
        }
    } else {
        st(view_binding(od), view_at5(od, b, c, y0, y1, y2), bitcast<u32>(sum / avg_divisor(y0, y1, y2)));
    }
}

// disjoint reports whether the windows along d never overlap (a stride at
// least the dilated window's span, not adaptive): an input position then
// lies in at most one window, found by division.
fn disjoint(d: u32) -> bool {
    return params[6u] == 0u && geo(G_STRIDE, d) >= (geo(G_KERNEL, d) - 1u) * geo(G_DIL, d) + 1u;
}

// cand_count is the number of candidate outputs along d that may hold input
// position x in their window; cand returns candidate j, or -1.
fn cand_count(d: u32, x: u32) -> u32 {
    if (disjoint(d)) {
        return 1u;
    }
    if (params[6u] != 0u) {
        let lo = (x * geo(G_OUT, d)) / geo(G_IN, d);
        let hi = ((x + 1u) * geo(G_OUT, d) + geo(G_IN, d) - 1u) / geo(G_IN, d);
        return hi - lo;
    }
    return geo(G_KERNEL, d);
}

fn cand(d: u32, x: u32, j: u32) -> i32 {
    if (disjoint(d)) {
        // x + pad = y*stride + k*dil with k*dil < stride.
        let t = x + geo(G_PAD, d);
        let y = t / geo(G_STRIDE, d);
        let r = t % geo(G_STRIDE, d);
        if (r % geo(G_DIL, d) != 0u || r / geo(G_DIL, d) >= geo(G_KERNEL, d) || y >= geo(G_OUT, d)) {
            return -1;
        }
        return i32(y);
    }
    if (params[6u] != 0u) {
        let y = (x * geo(G_OUT, d)) / geo(G_IN, d) + j;
        let s = u32(win_start(d, y));
        if (y >= geo(G_OUT, d) || x < s || x >= s + win_taps(d, y)) {
            return -1;
        }
        return i32(y);
    }
    return out_pos(d, x, j);
}

fn pool_backward(o: u32) {
    var q = o;
    let x2 = q % geo(G_IN, 2u);
    q = q / geo(G_IN, 2u);
    let x1 = q % geo(G_IN, 1u);
    q = q / geo(G_IN, 1u);
    let x0 = q % geo(G_IN, 0u);
    q = q / geo(G_IN, 0u);
    let c = q % params[9u];
    let b = q / params[9u];
    let gd = params[11u];
    let gb = view_binding(gd);
    let id = params[13u];
    let is_max = params[4u] == 0u;
    let me = i32(spatial_index(x0, x1, x2));
    var acc = 0.0;
    for (var j0 = 0u; j0 < cand_count(0u, x0); j0 = j0 + 1u) {
        let y0 = cand(0u, x0, j0);
        if (y0 < 0) {
            continue;
        }
        for (var j1 = 0u; j1 < cand_count(1u, x1); j1 = j1 + 1u) {
            let y1 = cand(1u, x1, j1);
            if (y1 < 0) {
                continue;
            }
            for (var j2 = 0u; j2 < cand_count(2u, x2); j2 = j2 + 1u) {
                let y2 = cand(2u, x2, j2);
                if (y2 < 0) {
                    continue;
                }
                let g = bitcast<f32>(ld(gb, view_at5(gd, b, c, u32(y0), u32(y1), u32(y2))));
                if (is_max) {
                    let w = bitcast<i32>(ld(view_binding(id), view_at5(id, b, c, u32(y0), u32(y1), u32(y2))));
                    if (w == me) {
                        acc = acc + g;
                    }
                } else {
                    acc = acc + g / avg_divisor(u32(y0), u32(y1), u32(y2));
                }
            }
        }
    }
    let od = params[12u];
    st(view_binding(od), view_at5(od, b, c, x0, x1, x2), bitcast<u32>(acc));
}

@compute @workgroup_size(256)
fn pool(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let o = invocation(wid, nwg, li);
    if (o >= params[H_N]) {
        return;
    }
    load_geometry();
    if (params[5u] != 0u) {
        pool_backward(o);
    } else {
        pool_forward(o);
    }
}
