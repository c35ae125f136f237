// hooks.wgsl: placeholder definitions of the hook functions every kind may
// call (see package gpu, "Hooks"). The Vulkan kernels are compiled with
// these; at run time the Vulkan backend replaces each placeholder's body
// with SPIR-V emitted for the launch's fused program (gpu/vulkan/internal/
// spv), finding the functions by their debug names. The WebGPU backend
// composes kinds with generated WGSL hooks instead (package gpu, wgsl.go).

fn ew_program(p: u32) {}

fn reduce_prologue(p: u32) -> f32 {
    return 0.0;
}

fn reduce_epilogue(p: u32, acc: u32) {}

fn epilogue(p: u32, acc: f32) {}
