// elementwise.wgsl: runs the fused program once per element of the
// kernel's shape (device.ElementwiseKernel).
//
// params: [0] n, the number of elements; [1] the program block (space: the
// kernel's shape; views: the inputs, then the outputs).

@compute @workgroup_size(256)
fn elementwise(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let p = invocation(wid, nwg, li);
    if (p < params[H_N]) {
        ew_program(p);
    }
}
