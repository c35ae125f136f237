// tile.wgsl: the register-blocked inner product of the tiled kernels
// (matmul, conv). A workgroup of WG invocations computes a TILE x TILE block
// of a product, staging TILE_K-deep slices of both operands in workgroup
// memory laid out [TILE_K][TILE]; invocation li, as (tx, ty) = (li % 16,
// li / 16), accumulates the 4x4 elements at rows ty + 16r and columns
// tx + 16c.

const TILE: u32 = 64u;   // tile rows and columns
const TILE_K: u32 = 8u;  // tile depth

// The staged slices of the operands, [TILE_K][TILE] each (kernels that do
// not call tile_accumulate leave them unused).
var<workgroup> tile_a: array<f32, 512>;
var<workgroup> tile_b: array<f32, 512>;

// tile_accumulate adds the product of the staged slices to acc (acc[r][c]:
// row ty + 16r, column tx + 16c).
fn tile_accumulate(acc: ptr<function, array<vec4<f32>, 4>>, tx: u32, ty: u32) {
    for (var kk = 0u; kk < TILE_K; kk = kk + 1u) {
        let ra = kk * TILE + ty;
        let av = vec4<f32>(tile_a[ra], tile_a[ra + 16u], tile_a[ra + 32u], tile_a[ra + 48u]);
        let rb = kk * TILE + tx;
        let bv = vec4<f32>(tile_b[rb], tile_b[rb + 16u], tile_b[rb + 32u], tile_b[rb + 48u]);
        (*acc)[0] = (*acc)[0] + av.x * bv;
        (*acc)[1] = (*acc)[1] + av.y * bv;
        (*acc)[2] = (*acc)[2] + av.z * bv;
        (*acc)[3] = (*acc)[3] + av.w * bv;
    }
}

// tile_origin splits workgroup number w of a grid of products, each tiled
// tn tiles wide and tm tiles tall, into (product, first row, first column).
fn tile_origin(w: u32, tn: u32, tm: u32) -> vec3<u32> {
    let t = w % (tn * tm);
    return vec3<u32>(w / (tn * tm), (t / tn) * TILE, (t % tn) * TILE);
}

// TileSplit is what one workgroup of a tiled launch computes: product
// prod (prod >= the launch's products for the grid's surplus), over depths
// [lo, hi), passing its results to the epilogue at positions shifted by
// shift.
struct TileSplit {
    prod: u32,
    lo: u32,
    hi: u32,
    shift: u32,
}

// tile_split places product x of a launch of nprod products of depth k. A
// launch split over the depth (params[H_CHUNK] != 0) runs its products once
// per chunk of H_CHUNK depths: copy s covers depths [s*chunk, (s+1)*chunk)
// and stores its partial sums at positions shifted by s*params[H_N], for a
// second launch to add up (gpu/split.go).
fn tile_split(x: u32, nprod: u32, k: u32) -> TileSplit {
    let c = params[H_CHUNK];
    if (c == 0u) {
        return TileSplit(x, 0u, k, 0u);
    }
    let s = x / nprod;
    let lo = s * c;
    if (lo >= k) {
        return TileSplit(nprod, 0u, 0u, 0u);
    }
    return TileSplit(x % nprod, lo, min(k, lo + c), s * params[H_N]);
}

// tile_step waits for the slices to be staged, accumulates their product
// and waits until every invocation has read them.
fn tile_step(acc: ptr<function, array<vec4<f32>, 4>>, li: u32) {
    workgroupBarrier();
    tile_accumulate(acc, li % 16u, li / 16u);
    workgroupBarrier();
}

// tile_position is the (row, column) of element q (0..15) of invocation
// li's block in the tile whose first row and column are i0 and j0; its
// value is acc[q / 4][q % 4].
fn tile_position(i0: u32, j0: u32, li: u32, q: u32) -> vec2<u32> {
    return vec2<u32>(i0 + li / 16u + 16u * (q / 4u), j0 + li % 16u + 16u * (q % 4u));
}

// Staging: the WG invocations stage 2*WG elements of each operand per slice;
// element idx (li + q*WG) of A's slice is row tile_a_row at depth
// tile_a_depth, stored at tile_a_slot; element idx of B's slice is column
// tile_b_col at depth tile_b_depth, stored at tile_b_slot.
fn tile_a_row(idx: u32) -> u32 { return idx / TILE_K; }
fn tile_a_depth(idx: u32) -> u32 { return idx % TILE_K; }
fn tile_a_slot(idx: u32) -> u32 { return (idx % TILE_K) * TILE + idx / TILE_K; }
fn tile_b_depth(idx: u32) -> u32 { return idx / TILE; }
fn tile_b_col(idx: u32) -> u32 { return idx % TILE; }
fn tile_b_slot(idx: u32) -> u32 { return idx; }
