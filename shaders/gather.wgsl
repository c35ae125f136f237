// gather.wgsl: torch.gather (device.GatherKernel). One invocation per
// element of Index: Out[i] = Src[i with i[axis] = Index[i]]. An index outside
// [0, Src.Shape[axis]) is clamped and reported in the status buffer.
//
// params: [0] n, Index's elements; [4] axis; [5] rank r; [6] Src's size
// along the axis; [7] the status slot's descriptor (rank 0); [9] offset of
// Index's shape (r words); [10] Src, [11] Index, [12] Out view descriptors.

// report_index flags an out-of-range index in the launch's status slot.
fn report_index(idx: i32) {
    let sd = params[7u];
    or_word(view_binding(sd), params[sd + VD_OFFSET], 1u);
    st(view_binding(sd), params[sd + VD_OFFSET] + 1u, bitcast<u32>(idx));
}

// checked_index loads Index at position p and clamps it into [0, size),
// reporting it when it is outside; size must be positive.
fn checked_index(id: u32, shape: u32, r: u32, p: u32, size: u32) -> u32 {
    let idx = bitcast<i32>(ld(view_binding(id), view_elem(id, shape, r, p)));
    if (idx < 0 || u32(idx) >= size) {
        report_index(idx);
        return select(size - 1u, 0u, idx < 0);
    }
    return u32(idx);
}

@compute @workgroup_size(256)
fn gather(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let p = invocation(wid, nwg, li);
    if (p >= params[H_N]) {
        return;
    }
    let axis = params[4u];
    let r = params[5u];
    let size = params[6u];
    let shape = params[9u];
    let sd = params[10u];
    let od = params[12u];
    if (size == 0u) {
        report_index(bitcast<i32>(ld(view_binding(params[11u]), view_elem(params[11u], shape, r, p))));
        return;
    }
    let idx = checked_index(params[11u], shape, r, p, size);
    let dt = view_dtype(sd);
    let v = load_raw(view_binding(sd), dt, view_elem_sub(sd, shape, r, p, axis, idx));
    store_raw(view_binding(od), dt, view_elem(od, shape, r, p), v);
}
