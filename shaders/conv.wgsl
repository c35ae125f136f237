// conv.wgsl: direct N-d convolution in three modes with a fused epilogue
// (device.ConvKernel): one invocation per result element accumulates its
// whole sum. Spatial dimensions are padded to three (size one).
//
// params: [0] n, the result's elements; [1] the epilogue block (space: the
// result's shape; acc: the sum); [4] mode (0 forward, 1 backward input,
// 2 backward weight); [5] groups; [6] N; [7] C; [8] O; [9] A and [10] B
// view descriptors (rank 5); words 16..33: In, Kernel, Out, Stride, Padding,
// Dilation, three words each.

fn conv_forward(o: u32) -> f32 {
    let ad = params[9u];
    let bd = params[10u];
    var q = o;
    let y2 = q % geo(G_OUT, 2u);
    q = q / geo(G_OUT, 2u);
    let y1 = q % geo(G_OUT, 1u);
    q = q / geo(G_OUT, 1u);
    let y0 = q % geo(G_OUT, 0u);
    q = q / geo(G_OUT, 0u);
    let oc = q % params[8u];
    let b = q / params[8u];
    let cg = params[7u] / params[5u];
    let g = oc / (params[8u] / params[5u]);
    let ab = view_binding(ad);
    let bb = view_binding(bd);
    var acc = 0.0;
    for (var c = 0u; c < cg; c = c + 1u) {
        for (var k0 = 0u; k0 < geo(G_KERNEL, 0u); k0 = k0 + 1u) {
            let x0 = in_pos(0u, y0, k0);
            if (!inside(0u, x0)) {
                continue;
            }
            for (var k1 = 0u; k1 < geo(G_KERNEL, 1u); k1 = k1 + 1u) {
                let x1 = in_pos(1u, y1, k1);
                if (!inside(1u, x1)) {
                    continue;
                }
                for (var k2 = 0u; k2 < geo(G_KERNEL, 2u); k2 = k2 + 1u) {
                    let x2 = in_pos(2u, y2, k2);
                    if (!inside(2u, x2)) {
                        continue;
                    }
                    let a = bitcast<f32>(ld(ab, view_at5(ad, b, g * cg + c, u32(x0), u32(x1), u32(x2))));
                    let w = bitcast<f32>(ld(bb, view_at5(bd, oc, c, k0, k1, k2)));
                    acc = acc + a * w;
                }
            }
        }
    }
    return acc;
}

fn conv_backward_input(o: u32) -> f32 {
    let ad = params[9u];
    let bd = params[10u];
    var q = o;
    let x2 = q % geo(G_IN, 2u);
    q = q / geo(G_IN, 2u);
    let x1 = q % geo(G_IN, 1u);
    q = q / geo(G_IN, 1u);
    let x0 = q % geo(G_IN, 0u);
    q = q / geo(G_IN, 0u);
    let ci = q % params[7u];
    let b = q / params[7u];
    let cg = params[7u] / params[5u];
    let og = params[8u] / params[5u];
    let g = ci / cg;
    let cl = ci % cg;
    let ab = view_binding(ad);
    let bb = view_binding(bd);
    var acc = 0.0;
    for (var oc = g * og; oc < (g + 1u) * og; oc = oc + 1u) {
        for (var k0 = 0u; k0 < geo(G_KERNEL, 0u); k0 = k0 + 1u) {
            let y0 = out_pos(0u, x0, k0);
            if (y0 < 0) {
                continue;
            }
            for (var k1 = 0u; k1 < geo(G_KERNEL, 1u); k1 = k1 + 1u) {
                let y1 = out_pos(1u, x1, k1);
                if (y1 < 0) {
                    continue;
                }
                for (var k2 = 0u; k2 < geo(G_KERNEL, 2u); k2 = k2 + 1u) {
                    let y2 = out_pos(2u, x2, k2);
                    if (y2 < 0) {
                        continue;
                    }
                    let dy = bitcast<f32>(ld(ab, view_at5(ad, b, oc, u32(y0), u32(y1), u32(y2))));
                    let w = bitcast<f32>(ld(bb, view_at5(bd, oc, cl, k0, k1, k2)));
                    acc = acc + dy * w;
                }
            }
        }
    }
    return acc;
}

fn conv_backward_weight(o: u32) -> f32 {
    let ad = params[9u];
    let bd = params[10u];
    var q = o;
    let k2 = q % geo(G_KERNEL, 2u);
    q = q / geo(G_KERNEL, 2u);
    let k1 = q % geo(G_KERNEL, 1u);
    q = q / geo(G_KERNEL, 1u);
    let k0 = q % geo(G_KERNEL, 0u);
    q = q / geo(G_KERNEL, 0u);
    let cg = params[7u] / params[5u];
    let cl = q % cg;
    let oc = q / cg;
    let ci = (oc / (params[8u] / params[5u])) * cg + cl;
    let ab = view_binding(ad);
    let bb = view_binding(bd);
    var acc = 0.0;
    for (var b = 0u; b < params[6u]; b = b + 1u) {
        for (var y0 = 0u; y0 < geo(G_OUT, 0u); y0 = y0 + 1u) {
            let x0 = in_pos(0u, y0, k0);
            if (!inside(0u, x0)) {
                continue;
            }
            for (var y1 = 0u; y1 < geo(G_OUT, 1u); y1 = y1 + 1u) {
                let x1 = in_pos(1u, y1, k1);
                if (!inside(1u, x1)) {
                    continue;
                }
                for (var y2 = 0u; y2 < geo(G_OUT, 2u); y2 = y2 + 1u) {
                    let x2 = in_pos(2u, y2, k2);
                    if (!inside(2u, x2)) {
                        continue;
                    }
                    let dy = bitcast<f32>(ld(ab, view_at5(ad, b, oc, y0, y1, y2)));
                    let x = bitcast<f32>(ld(bb, view_at5(bd, b, ci, u32(x0), u32(x1), u32(x2))));
                    acc = acc + dy * x;
                }
            }
        }
    }
    return acc;
}

@compute @workgroup_size(256)
fn conv(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let o = invocation(wid, nwg, li);
    if (o >= params[H_N]) {
        return;
    }
    var acc: f32;
    switch params[4u] {
        case 1u: { acc = conv_backward_input(o); }
        case 2u: { acc = conv_backward_weight(o); }
        default: { acc = conv_forward(o); }
    }
    epilogue(o, acc);
}
