// Command spirv is Shaderflow's shader build tool: it compiles the WGSL
// kernels in shaders/ to SPIR-V for the Vulkan backend and writes them to
// shaders/spv/<kind>.spv, where package shaders embeds them.
//
// Usage:
//
//	go run ./tools/spirv [-dir shaders] [-check] [-naga path] [-spirv-val path]
//
// `go generate ./...` runs it through the //go:generate line in package
// shaders. For every kernel kind (a shaders/*.wgsl file that declares a
// @compute entry point) the tool
//
//  1. concatenates the kind's WGSL with every helper file (a shaders/*.wgsl
//     file without an entry point, hooks.wgsl's placeholder hook functions
//     included: the Vulkan backend replaces their bodies at run time),
//  2. compiles the result with naga (SPIR-V 1.0, Vulkan 1.0 semantics)
//     with debug symbols (-g),
//  3. applies the Go post-passes of this package to the SPIR-V words (see
//     Passes): 16-bit storage capabilities that no variable needs are
//     removed (naga declares StorageInputOutput16 for any f16 use, which
//     lavapipe lacks) and naga's zero-initialization of workgroup memory is
//     dropped (it costs seconds of pipeline creation on lavapipe; kernels
//     must write workgroup memory before reading it), the debug
//     symbols are stripped except the OpName of every function, which is
//     how the Vulkan backend finds the hook functions to replace, and every
//     entry point declares the SignedZeroInfNanPreserve execution mode for
//     32-bit floats (SPV_KHR_float_controls), without which a driver may
//     assume no NaN or infinity and fold x - x to 0 (the Vulkan backend
//     removes the declaration on devices that lack it),
//  4. validates the final words with spirv-val --target-env vulkan1.0,
//  5. writes shaders/spv/<kind>.spv when its bytes changed, and removes
//     .spv files of kinds that no longer exist.
//
// Output is deterministic: the same sources and tools give the same bytes.
// With -check nothing is written; the tool exits with status 1 and names
// every stale, missing or extra file when the committed SPIR-V does not match
// what the sources compile to (CI runs it, or `git diff --exit-code shaders/`
// after `go generate`). The tool exits with a clear message when naga or
// spirv-val cannot be found.
package main
