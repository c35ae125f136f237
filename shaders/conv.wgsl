// conv.wgsl: N-d convolution in three modes with a fused epilogue
// (device.ConvKernel), as a tiled implicit matrix product per group: each
// workgroup computes a TILE x TILE block of one group's product (tile.wgsl),
// gathering its operands' slices from the tensors as it stages them (taps in
// the padding, between dilated or strided positions, and past the ends read
// as zero). Spatial dimensions are padded to three (size one). Per mode, with
// cg = C/groups, og = O/groups and KS, IS, OS the kernel's, input's and
// output's spatial sizes:
//
//	mode             rows (M)     columns     depth (K)    A         B
//	0 forward        (n, out)     oc in og    (c, tap)     x         w
//	1 backward input (n, in)      c in cg     (oc, tap)    dy        w
//	2 backward weight oc in og    (c, tap)    (n, out)     dy        x
//
// params: [0] n, the result's elements; [1] the epilogue block (space: the
// result's shape; acc: the sum); [4] mode; [5] groups; [6] N; [7] C; [8] O;
// [9] A and [10] B view descriptors (rank 5); [11] M; [12] columns;
// [13] depth; [14] tiles along the columns; [15] tiles along M; words
// 16..33: In, Kernel, Out, Stride, Padding, Dilation, three words each;
// [3] the depth chunk of a split launch (tile_split).

// size3 is the number of positions of a three-word geometry field.
fn size3(field: u32) -> u32 { return geo(field, 0u) * geo(field, 1u) * geo(field, 2u); }

// split3 is the multi-index of position s of a three-word geometry field.
fn split3(field: u32, s: u32) -> vec3<u32> {
    let d1 = geo(field, 1u);
    let d2 = geo(field, 2u);
    return vec3<u32>(s / (d1 * d2), (s / d2) % d1, s % d2);
}

// Operand gathers. Each staged element of an operand is the sum of two
// parts: one from its stationary index (A's row, B's column: fixed for an
// invocation) and one from its depth (decoded once per slice). A part is an
// element offset and, for operands read through the window, spatial
// positions that the two parts' sum places in the input (TAP) or maps back
// to an output position (BACK_TAP).

const PLAIN: u32 = 0u;
const TAP: u32 = 1u;
const BACK_TAP: u32 = 2u;
const BACK_TAP_UNIT: u32 = 3u; // BACK_TAP with every stride one

struct Part {
    off: u32,
    pos: vec3<i32>,
}

// Gather is an operand's view and how its parts combine.
struct Gather {
    kind: u32,
    bind: u32,
    base: u32,        // the view's element offset
    sp: vec3<u32>,    // the view's spatial strides
    lim: vec3<i32>,   // the view's spatial size (TAP: the input's; else the output's)
    step: vec3<i32>,  // the convolution's strides (BACK_TAP)
}

// vgeo is a three-word geometry field as a vector.
fn vgeo(field: u32) -> vec3<i32> {
    return vec3<i32>(i32(geo(field, 0u)), i32(geo(field, 1u)), i32(geo(field, 2u)));
}

// gather_of describes view d read as an operand of the given kind.
fn gather_of(d: u32, kind: u32) -> Gather {
    let s = d + VD_STRIDES + 2u;
    var lim = vgeo(G_OUT);
    if (kind == TAP) {
        lim = vgeo(G_IN);
    }
    return Gather(kind, view_binding(d), params[d + VD_OFFSET], vec3<u32>(params[s], params[s + 1u], params[s + 2u]),
        lim, vgeo(G_STRIDE));
}

// gather_load loads the element at parts a + b of operand o, or 0 where the
// window reads padding (TAP) or no output reads the input position (BACK_TAP).
fn gather_load(o: Gather, a: Part, b: Part) -> f32 {
    var p = a.pos + b.pos;
    if (o.kind == BACK_TAP) {
        if (any(p < vec3<i32>(0)) || any(p % o.step != vec3<i32>(0))) {
            return 0.0;
        }
        p = p / o.step;
    }
    if (o.kind != PLAIN && (any(p < vec3<i32>(0)) || any(p >= o.lim))) {
        return 0.0;
    }
    let q = vec3<u32>(p) * o.sp;
    return bitcast<f32>(ld(o.bind, o.base + a.off + b.off + q.x + q.y + q.z));
}

// operand_kinds are the kinds of A and B in a mode: forward A taps x and B
// is w; backward input A taps dy backwards and B is w; backward weight A is
// dy and B taps x.
fn operand_kinds(mode: u32) -> vec2<u32> {
    switch mode {
        case 1u: {
            if (all(vgeo(G_STRIDE) == vec3<i32>(1))) {
                return vec2<u32>(BACK_TAP_UNIT, PLAIN);
            }
            return vec2<u32>(BACK_TAP, PLAIN);
        }
        case 2u: {
            return vec2<u32>(PLAIN, TAP);
        }
        default: {
            return vec2<u32>(TAP, PLAIN);
        }
    }
}

// stride_of is dimension i's stride of view d (rank 5).
fn stride_of(d: u32, i: u32) -> u32 { return params[d + VD_STRIDES + i]; }

fn groups_c() -> u32 { return params[7u] / params[5u]; }
fn groups_o() -> u32 { return params[8u] / params[5u]; }

// window_start is the first input position that output position y reads.
fn window_start(y: vec3<u32>) -> vec3<i32> {
    return vec3<i32>(y) * vgeo(G_STRIDE) - vgeo(G_PAD);
}

// tap_offset is tap k's distance from its window's start.
fn tap_offset(k: vec3<u32>) -> vec3<i32> { return vec3<i32>(k) * vgeo(G_DIL); }

// spatial_off is the element offset of spatial position s in view d.
fn spatial_off(d: u32, s: vec3<u32>) -> u32 {
    return s.x * stride_of(d, 2u) + s.y * stride_of(d, 3u) + s.z * stride_of(d, 4u);
}

// conv_row is row i's part of A in group g.
fn conv_row(g: u32, i: u32) -> Part {
    let d = params[9u];
    switch params[4u] {
        case 1u: {
            let is = size3(G_IN);
            return Part(i / is * stride_of(d, 0u), vec3<i32>(split3(G_IN, i % is)) + vgeo(G_PAD));
        }
        case 2u: {
            return Part((g * groups_o() + i) * stride_of(d, 1u), vec3<i32>(0));
        }
        default: {
            let os = size3(G_OUT);
            return Part(i / os * stride_of(d, 0u), window_start(split3(G_OUT, i % os)));
        }
    }
}

// conv_a_depth is depth kk's part of A in group g.
fn conv_a_depth(g: u32, kk: u32) -> Part {
    let d = params[9u];
    let ks = size3(G_KERNEL);
    switch params[4u] {
        case 1u: {
            return Part((g * groups_o() + kk / ks) * stride_of(d, 1u), -tap_offset(split3(G_KERNEL, kk % ks)));
        }
        case 2u: {
            let os = size3(G_OUT);
            return Part(kk / os * stride_of(d, 0u) + spatial_off(d, split3(G_OUT, kk % os)), vec3<i32>(0));
        }
        default: {
            return Part((g * groups_c() + kk / ks) * stride_of(d, 1u), tap_offset(split3(G_KERNEL, kk % ks)));
        }
    }
}

// conv_col is column j's part of B in group g.
fn conv_col(g: u32, j: u32) -> Part {
    let d = params[10u];
    switch params[4u] {
        case 1u: {
            return Part(j * stride_of(d, 1u), vec3<i32>(0));
        }
        case 2u: {
            let ks = size3(G_KERNEL);
            return Part((g * groups_c() + j / ks) * stride_of(d, 1u), tap_offset(split3(G_KERNEL, j % ks)));
        }
        default: {
            return Part((g * groups_o() + j) * stride_of(d, 0u), vec3<i32>(0));
        }
    }
}

// conv_b_depth is depth kk's part of B in group g.
fn conv_b_depth(g: u32, kk: u32) -> Part {
    let d = params[10u];
    let ks = size3(G_KERNEL);
    switch params[4u] {
        case 1u: {
            return Part((g * groups_o() + kk / ks) * stride_of(d, 0u) + spatial_off(d, split3(G_KERNEL, kk % ks)), vec3<i32>(0));
        }
        case 2u: {
            let os = size3(G_OUT);
            return Part(kk / os * stride_of(d, 0u), window_start(split3(G_OUT, kk % os)));
        }
        default: {
            return Part(kk / ks * stride_of(d, 1u) + spatial_off(d, split3(G_KERNEL, kk % ks)), vec3<i32>(0));
        }
    }
}

// conv_result is the result element of group g's product at (i, j).
fn conv_result(g: u32, i: u32, j: u32) -> u32 {
    switch params[4u] {
        case 1u: {
            let is = size3(G_IN);
            return ((i / is) * params[7u] + g * groups_c() + j) * is + i % is;
        }
        case 2u: {
            return (g * groups_o() + i) * params[12u] + j;
        }
        default: {
            let os = size3(G_OUT);
            return ((i / os) * params[8u] + g * groups_o() + j) * os + i % os;
        }
    }
}

@compute @workgroup_size(256)
fn conv(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let origin = tile_origin(linear_workgroup(wid, nwg), params[14u], params[15u]);
    let split = tile_split(origin.x, params[5u], params[13u]);
    let g = split.prod;
    if (g >= params[5u]) {
        return;
    }
    let i0 = origin.y;
    let j0 = origin.z;
    load_geometry();
    let m = params[11u];
    let n = params[12u];
    let k = split.hi;
    var acc: array<vec4<f32>, 4>; // zero-initialized
    let kinds = operand_kinds(params[4u]);
    let ga = gather_of(params[9u], kinds.x);
    let gb = gather_of(params[10u], kinds.y);
    // An invocation stages rows tile_a_row(li) and tile_a_row(li + WG) of A
    // at one depth (WG is a multiple of TILE_K) and column tile_b_col(li) of
    // B (WG is a multiple of TILE) at two depths.
    let r0 = i0 + tile_a_row(li);
    let r1 = i0 + tile_a_row(li + WG);
    let c = j0 + tile_b_col(li);
    let pr0 = conv_row(g, r0);
    let pr1 = conv_row(g, r1);
    let pc = conv_col(g, c);
    for (var k0 = split.lo; k0 < k; k0 = k0 + TILE_K) {
        let ka = k0 + tile_a_depth(li);
        var a0 = 0.0;
        var a1 = 0.0;
        if (ka < k) {
            let pd = conv_a_depth(g, ka);
            if (r0 < m) {
                a0 = gather_load(ga, pr0, pd);
            }
            if (r1 < m) {
                a1 = gather_load(ga, pr1, pd);
            }
        }
        tile_a[tile_a_slot(li)] = a0;
        tile_a[tile_a_slot(li + WG)] = a1;
        for (var q = 0u; q < 2u; q = q + 1u) {
            let idx = li + q * WG;
            let kb = k0 + tile_b_depth(idx);
            var vb = 0.0;
            if (kb < k && c < n) {
                vb = gather_load(gb, pc, conv_b_depth(g, kb));
            }
            tile_b[tile_b_slot(idx)] = vb;
        }
        tile_step(&acc, li);
    }
    // One call site for the epilogue (it is inlined).
    for (var q = 0u; q < 16u; q = q + 1u) {
        let p = tile_position(i0, j0, li, q);
        if (p.x < m && p.y < n) {
            epilogue(split.shift + conv_result(g, p.x, p.y), acc[q / 4u][q % 4u]);
        }
    }
}
