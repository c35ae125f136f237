// scatter.wgsl: torch.scatter_add_ (device.ScatterKernel). One invocation
// per element of Index: Dst[i with i[axis] = Index[i]] += Src[i], a float
// atomic add by compare-exchange on the word's bits. An index outside
// [0, Dst.Shape[axis]) is clamped and reported in the status buffer.
//
// params: [0] n, Index's elements; [4] axis; [5] rank r; [6] Dst's size
// along the axis; [7] the status slot's descriptor (rank 0); [9] offset of
// Index's shape (r words); [10] Dst, [11] Index, [12] Src view descriptors.

// scatter_report flags an out-of-range index in the launch's status slot.
fn scatter_report(idx: i32) {
    let sd = params[7u];
    or_word(view_binding(sd), params[sd + VD_OFFSET], 1u);
    st(view_binding(sd), params[sd + VD_OFFSET] + 1u, bitcast<u32>(idx));
}

// atomic_add_f32 adds v to the f32 word w of binding b.
fn atomic_add_f32(b: u32, w: u32, v: f32) {
    var old = ld(b, w);
    loop {
        let prev = cas(b, w, old, bitcast<u32>(bitcast<f32>(old) + v));
        if (prev == old) {
            break;
        }
        old = prev;
    }
}

@compute @workgroup_size(256)
fn scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let p = invocation(wid, nwg, li);
    if (p >= params[H_N]) {
        return;
    }
    let axis = params[4u];
    let r = params[5u];
    let size = params[6u];
    let shape = params[9u];
    let dd = params[10u];
    let id = params[11u];
    let sd = params[12u];
    let raw = bitcast<i32>(ld(view_binding(id), view_elem(id, shape, r, p)));
    if (raw < 0 || u32(raw) >= size) {
        scatter_report(raw);
        return;
    }
    let v = view_load_f32(sd, view_elem(sd, shape, r, p));
    atomic_add_f32(view_binding(dd), view_elem_sub(dd, shape, r, p, axis, u32(raw)), v);
}
