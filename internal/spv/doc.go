// Package spv generates the SPIR-V of the Vulkan backend's fused kernels at
// run time, in Go, with no external tool.
//
// The kernels are compiled at build time (tools/spirv) with placeholder hook
// functions (shaders/hooks.wgsl) and keep the OpName of every function.
// Parse indexes such a base module once: its functions by name, the params
// and data-binding variables by descriptor binding, and its types and
// constants. Splice then returns a copy of the module in which the body of
// each hook a launch uses is replaced by straight-line code for the hook's
// program, emitted here from the gpu.Hook plan, with new types and
// constants added to the global section (deduplicated against the base's)
// and the id bound raised.
//
// The emitted code follows the same lowering decisions as package gpu's
// WGSL generator: float ops and int32 division call the functions of
// ops.wgsl named by gpu.OpFunction (so both backends share device's scalar
// semantics, NaN and infinity cases included), views are read and written
// through their binding as 32-bit words (f16, bf16, bool, uint8 and int8
// packed in words: their words are loaded atomically and stored with atomic and/or,
// so that neighbouring elements never race; whole-word f32 and i32
// elements use plain loads and stores, which lavapipe vectorizes where it
// runs atomics lane by lane), and a
// program's constants and random-stream keys are loaded from the block's
// immediates in the params buffer, never written as literals (drivers fold
// literal constants without IEEE semantics). WithoutFloatControls
// removes the SignedZeroInfNanPreserve declaration that tools/spirv adds,
// for devices that lack it.
package spv
