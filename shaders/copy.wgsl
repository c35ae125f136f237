// copy.wgsl: copies a view into another of the same shape and dtype,
// element by element, bit for bit (device.CopyKernel).
//
// params: [0] n, the number of elements; [5] rank r; [9] offset of the
// shape (r words); [10] Dst and [11] Src view descriptors.

@compute @workgroup_size(256)
fn copy_view(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let p = invocation(wid, nwg, li);
    if (p >= params[H_N]) {
        return;
    }
    let r = params[5u];
    let shape = params[9u];
    let dd = params[10u];
    let sd = params[11u];
    let dt = view_dtype(sd);
    let v = load_raw(view_binding(sd), dt, view_elem(sd, shape, r, p));
    store_raw(view_binding(dd), dt, view_elem(dd, shape, r, p), v);
}
