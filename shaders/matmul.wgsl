// matmul.wgsl: batched matrix product with a fused epilogue
// (device.MatMulKernel). Each workgroup computes a TILE x TILE block of one
// batch's result (tile.wgsl), staging TILE x TILE_K slices of A and
// TILE_K x TILE slices of B in workgroup memory.
//
// params: [0] n, the result's elements; [1] the epilogue block (space
// Batch ++ [M, N]; acc: the dot product); [4] M; [5] N; [6] K; [7] the
// number of batches; [8] batch rank br; [9] tiles along N; [10] tiles along
// M; [11] offset of the batch shape (br words); [12] A and [13] B view
// descriptors (rank br+2); [3] the depth chunk of a split launch
// (tile_split).

// batch_offset returns the element offset of batch b in view d.
fn batch_offset(d: u32, shape: u32, br: u32, b: u32) -> u32 {
    var e = params[d + VD_OFFSET];
    var q = b;
    for (var i = br; i > 0u; i = i - 1u) {
        let s = params[shape + i - 1u];
        e = e + (q % s) * params[d + VD_STRIDES + i - 1u];
        q = q / s;
    }
    return e;
}

@compute @workgroup_size(256)
fn matmul(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let origin = tile_origin(linear_workgroup(wid, nwg), params[9u], params[10u]);
    let split = tile_split(origin.x, params[7u], params[6u]);
    let b = split.prod;
    if (b >= params[7u]) {
        return;
    }
    let i0 = origin.y;
    let j0 = origin.z;
    let m = params[4u];
    let n = params[5u];
    let k = split.hi;
    let br = params[8u];
    let bshape = params[11u];
    let ad = params[12u];
    let bd = params[13u];
    let abind = view_binding(ad);
    let bbind = view_binding(bd);
    let abase = batch_offset(ad, bshape, br, b);
    let bbase = batch_offset(bd, bshape, br, b);
    let a_m = params[ad + VD_STRIDES + br];
    let a_k = params[ad + VD_STRIDES + br + 1u];
    let b_k = params[bd + VD_STRIDES + br];
    let b_n = params[bd + VD_STRIDES + br + 1u];
    var acc: array<vec4<f32>, 4>; // zero-initialized
    for (var k0 = split.lo; k0 < k; k0 = k0 + TILE_K) {
        for (var q = 0u; q < 2u; q = q + 1u) {
            let idx = li + q * WG;
            let row = tile_a_row(idx);
            let ka = k0 + tile_a_depth(idx);
            var va = 0.0;
            if (i0 + row < m && ka < k) {
                va = bitcast<f32>(ld(abind, abase + (i0 + row) * a_m + ka * a_k));
            }
            tile_a[tile_a_slot(idx)] = va;
            let kb = k0 + tile_b_depth(idx);
            let col = tile_b_col(idx);
            var vb = 0.0;
            if (kb < k && j0 + col < n) {
                vb = bitcast<f32>(ld(bbind, bbase + kb * b_k + (j0 + col) * b_n));
            }
            tile_b[tile_b_slot(idx)] = vb;
        }
        tile_step(&acc, li);
    }
    // One call site for the epilogue: it is inlined, so sixteen would
    // multiply the kernel's size (and its compile time).
    for (var q = 0u; q < 16u; q = q + 1u) {
        let p = tile_position(i0, j0, li, q);
        if (p.x < m && p.y < n) {
            epilogue(split.shift + (b * m + p.x) * n + p.y, acc[q / 4u][q % 4u]);
        }
    }
}
