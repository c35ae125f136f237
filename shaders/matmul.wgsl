// matmul.wgsl: batched matrix product with a fused epilogue
// (device.MatMulKernel). Each workgroup computes a 64x64 tile of one batch's
// result, staging 64x8 tiles of A and 8x64 tiles of B in workgroup memory;
// each invocation accumulates a 4x4 block (rows ty+16i, columns tx+16j).
//
// params: [0] n, the result's elements; [1] the epilogue block (space
// Batch ++ [M, N]; acc: the dot product); [4] M; [5] N; [6] K; [7] the
// number of batches; [8] batch rank br; [9] tiles along N; [10] tiles along
// M; [11] offset of the batch shape (br words); [12] A and [13] B view
// descriptors (rank br+2).

const MM_T: u32 = 64u; // tile rows and columns
const MM_K: u32 = 8u;  // tile depth

var<workgroup> mm_a: array<f32, 512>; // [MM_K][MM_T]
var<workgroup> mm_b: array<f32, 512>; // [MM_K][MM_T]

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
    let w = linear_workgroup(wid, nwg);
    let tn = params[9u];
    let tiles = tn * params[10u];
    let b = w / tiles;
    if (b >= params[7u]) {
        return;
    }
    let t = w % tiles;
    let i0 = (t / tn) * MM_T;
    let j0 = (t % tn) * MM_T;
    let m = params[4u];
    let n = params[5u];
    let k = params[6u];
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
    let tx = li % 16u;
    let ty = li / 16u;
    var acc: array<vec4<f32>, 4>;
    for (var q = 0u; q < 4u; q = q + 1u) {
        acc[q] = vec4<f32>(0.0);
    }
    for (var k0 = 0u; k0 < k; k0 = k0 + MM_K) {
        for (var q = 0u; q < 2u; q = q + 1u) {
            let idx = li + q * WG;
            let row = idx / MM_K;
            let ka = k0 + idx % MM_K;
            var va = 0.0;
            if (i0 + row < m && ka < k) {
                va = bitcast<f32>(ld(abind, abase + (i0 + row) * a_m + ka * a_k));
            }
            mm_a[(idx % MM_K) * MM_T + row] = va;
            let kb = k0 + idx / MM_T;
            let col = idx % MM_T;
            var vb = 0.0;
            if (kb < k && j0 + col < n) {
                vb = bitcast<f32>(ld(bbind, bbase + kb * b_k + (j0 + col) * b_n));
            }
            mm_b[idx] = vb;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < MM_K; kk = kk + 1u) {
            let ra = kk * MM_T + ty;
            let a = vec4<f32>(mm_a[ra], mm_a[ra + 16u], mm_a[ra + 32u], mm_a[ra + 48u]);
            let rb = kk * MM_T + tx;
            let bv = vec4<f32>(mm_b[rb], mm_b[rb + 16u], mm_b[rb + 32u], mm_b[rb + 48u]);
            acc[0] = acc[0] + a.x * bv;
            acc[1] = acc[1] + a.y * bv;
            acc[2] = acc[2] + a.z * bv;
            acc[3] = acc[3] + a.w * bv;
        }
        workgroupBarrier();
    }
    // One call site for the epilogue: it is inlined, so sixteen would
    // multiply the kernel's size (and its compile time).
    for (var q = 0u; q < 16u; q = q + 1u) {
        let i = i0 + ty + 16u * (q / 4u);
        let j = j0 + tx + 16u * (q % 4u);
        if (i < m && j < n) {
            epilogue((b * m + i) * n + j, acc[q / 4u][q % 4u]);
        }
    }
}
