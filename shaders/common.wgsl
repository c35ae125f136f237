// common.wgsl: the params buffer, launch geometry, element types and view
// addressing shared by every Shaderflow kernel. See gpu/doc.go for the layout
// of the params words that these helpers read.

// Binding 0: the launch's parameters, encoded by package gpu.
@group(0) @binding(0) var<storage, read> params: array<u32>;

// Invocations per workgroup of every one-dimensional kernel.
const WG: u32 = 256u;

// Header words shared by every kind (params[0..15]).
const H_N: u32 = 0u;      // number of work items of the launch
const H_PROG0: u32 = 1u;  // word offset of program block 0 (0: none)
const H_PROG1: u32 = 2u;  // word offset of program block 1 (0: none)
const H_CHUNK: u32 = 3u;  // tiled products: depth of one chunk (0: unsplit)
const H_K: u32 = 4u;      // first kind-specific scalar; params[4..15]

// Element type codes: the values of device.DType.
const DT_F32: u32 = 1u;
const DT_F16: u32 = 2u;
const DT_BF16: u32 = 3u;
const DT_I32: u32 = 4u;
const DT_BOOL: u32 = 5u;
const DT_U8: u32 = 8u;
const DT_I8: u32 = 9u;

// A view descriptor is 3+rank words: binding, flags, element offset, then one
// stride per dimension (i32 bits). Flags hold the dtype in bits 0-7 and
// VIEW_CONTIGUOUS when the view is row-major over its space, so that element
// = offset + linear position.
const VD_BINDING: u32 = 0u;
const VD_FLAGS: u32 = 1u;
const VD_OFFSET: u32 = 2u;
const VD_STRIDES: u32 = 3u;
const VIEW_CONTIGUOUS: u32 = 256u;

// Bit patterns that must not be constant-folded (WGSL rejects NaN and
// infinite constant expressions): private variables are run-time values.
var<private> NAN_BITS: u32 = 0x7fc00000u;
var<private> INF_BITS: u32 = 0x7f800000u;

fn f32_nan() -> f32 { return bitcast<f32>(NAN_BITS); }
fn f32_inf() -> f32 { return bitcast<f32>(INF_BITS); }

// as_f32 reinterprets bits as f32 at run time (for generated constants).
fn as_f32(x: u32) -> f32 { return bitcast<f32>(x); }

fn is_nan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn is_inf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }
// both_finite reports whether neither a nor b is NaN or infinite.
fn both_finite(a: f32, b: f32) -> bool { return max(bitcast<u32>(a) & 0x7fffffffu, bitcast<u32>(b) & 0x7fffffffu) < 0x7f800000u; }

// linear_workgroup numbers the workgroups of a 2-D grid row by row.
fn linear_workgroup(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

// ---- element types ----

// f16_to_f32 converts binary16 bits exactly (device.Float16ToFloat32).
fn f16_to_f32(h: u32) -> f32 {
    let sign = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if (e == 0x1fu) {
        return bitcast<f32>(sign | 0x7f800000u | (m << 13u));
    }
    if (e == 0u) {
        let f = f32(m) * (1.0 / 16777216.0);
        return select(f, -f, sign != 0u);
    }
    return bitcast<f32>(sign | ((e + 112u) << 23u) | (m << 13u));
}

// f32_to_f16 converts to binary16 bits rounding to nearest even, exactly as
// device.Float32ToFloat16 (overflow gives infinity, NaN stays a quiet NaN).
fn f32_to_f16(f: f32) -> u32 {
    let b = bitcast<u32>(f);
    let sign = (b >> 16u) & 0x8000u;
    let e = (b >> 23u) & 0xffu;
    let m = b & 0x7fffffu;
    if (e == 0xffu) {
        return select(sign | 0x7c00u, sign | 0x7e00u, m != 0u);
    }
    if (e > 142u) {
        return sign | 0x7c00u;
    }
    if (e < 102u) {
        return sign;
    }
    if (e < 113u) {
        let mm = m | 0x800000u;
        let shift = 126u - e;
        var half = mm >> shift;
        let rem = mm & ((1u << shift) - 1u);
        let mid = 1u << (shift - 1u);
        if (rem > mid || (rem == mid && (half & 1u) == 1u)) {
            half = half + 1u;
        }
        return sign | half;
    }
    var half = ((e - 112u) << 10u) | (m >> 13u);
    let rem = m & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u) == 1u)) {
        half = half + 1u;
    }
    return sign | half;
}

// f32_to_bf16 converts to bfloat16 bits rounding to nearest even
// (device.Float32ToBFloat16).
fn f32_to_bf16(f: f32) -> u32 {
    let b = bitcast<u32>(f);
    if ((b & 0x7fffffffu) > 0x7f800000u) {
        return (b >> 16u) | 0x40u;
    }
    return (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;
}

// load_raw returns the stored bits of element e of a dtype-dt array in
// binding b (8- and 16-bit elements in the low bits; the kernels that use it
// move bits, never compute with them).
fn load_raw(b: u32, dt: u32, e: u32) -> u32 {
    switch dt {
        case 2u, 3u: { // DT_F16, DT_BF16 (wgpu 0.17's naga takes literal selectors only)
            return (ld(b, e >> 1u) >> ((e & 1u) * 16u)) & 0xffffu;
        }
        case 5u, 8u, 9u: { // DT_BOOL, DT_U8, DT_I8
            return (ld(b, e >> 2u) >> ((e & 3u) * 8u)) & 0xffu;
        }
        default: {
            return ld(b, e);
        }
    }
}

// store_raw stores the bits v as element e. Sub-word elements are written
// with atomic and/or on their word, so neighbours never race.
fn store_raw(b: u32, dt: u32, e: u32, v: u32) {
    switch dt {
        case 2u, 3u: { // DT_F16, DT_BF16
            st_part(b, e >> 1u, (e & 1u) * 16u, 0xffffu, v);
        }
        case 5u, 8u, 9u: { // DT_BOOL, DT_U8, DT_I8
            st_part(b, e >> 2u, (e & 3u) * 8u, 0xffu, v);
        }
        default: {
            st(b, e, v);
        }
    }
}

// ---- views ----

fn view_dtype(d: u32) -> u32 { return params[d + VD_FLAGS] & 0xffu; }
fn view_binding(d: u32) -> u32 { return params[d + VD_BINDING]; }

// view_elem returns the element index, in the view's buffer, of linear
// (row-major) position p of the space whose rank-r shape starts at word
// shape, for the view whose descriptor starts at word d.
fn view_elem(d: u32, shape: u32, r: u32, p: u32) -> u32 {
    var e = params[d + VD_OFFSET];
    if ((params[d + VD_FLAGS] & VIEW_CONTIGUOUS) != 0u) {
        return e + p;
    }
    var q = p;
    for (var i = r; i > 0u; i = i - 1u) {
        let s = params[shape + i - 1u];
        let c = q % s;
        q = q / s;
        e = e + c * params[d + VD_STRIDES + i - 1u];
    }
    return e;
}

// view_at returns the element index of the view at a multi-index given as
// up to five coordinates (unused trailing dimensions are zero).
fn view_at5(d: u32, c0: u32, c1: u32, c2: u32, c3: u32, c4: u32) -> u32 {
    let s = d + VD_STRIDES;
    return params[d + VD_OFFSET] + c0 * params[s] + c1 * params[s + 1u] + c2 * params[s + 2u]
        + c3 * params[s + 3u] + c4 * params[s + 4u];
}

// view_load_f32 loads element e of a Float32 view.
fn view_load_f32(d: u32, e: u32) -> f32 {
    return bitcast<f32>(ld(view_binding(d), e));
}

// view_elem_sub is view_elem with the coordinate along dimension axis
// replaced by c_axis (gather and scatter).
fn view_elem_sub(d: u32, shape: u32, r: u32, p: u32, axis: u32, c_axis: u32) -> u32 {
    var e = params[d + VD_OFFSET];
    var q = p;
    for (var i = r; i > 0u; i = i - 1u) {
        let s = params[shape + i - 1u];
        var c = q % s;
        q = q / s;
        if (i - 1u == axis) {
            c = c_axis;
        }
        e = e + c * params[d + VD_STRIDES + i - 1u];
    }
    return e;
}

// invocation returns the linear invocation number of a 1-D kernel.
fn invocation(wid: vec3<u32>, nwg: vec3<u32>, li: u32) -> u32 {
    return linear_workgroup(wid, nwg) * WG + li;
}
