// Package cpu is Shaderflow's CPU backend, registered as "cpu". It is the
// reference implementation of every kernel kind of the device contract,
// written in portable Go and parallel across GOMAXPROCS.
//
// Buffers are 64-byte aligned Go byte slices. Execution is synchronous: a
// kernel has finished when its method returns, Sync only reports closure,
// and Read copies. Every kernel method calls the kernel's Validate first and
// returns its error, so a malformed kernel never touches memory.
//
// Elementwise programs are interpreted over chunks of elements held in
// per-register typed scratch slices; reductions, matrix products and
// convolutions reuse the interpreter for their prologues and epilogues.
// Scalar semantics come from the device package (device.UnaryF32,
// device.BinaryF32, ...), so the CPU agrees with every other backend.
//
// # Aliasing
//
// An elementwise kernel may write an output over an input that is the very
// same view (in-place updates such as optimizer steps); results are then
// computed through scratch. Outputs that partially overlap an input, or each
// other, are undefined, as in PyTorch. Matrix products and convolutions
// whose output shares a buffer with an operand compute into scratch first.
//
// # SIMD seam
//
// The inner loops are function values that an assembly layer may replace at
// init time (see kernels_f32.go and sgemm.go): unaryF32, binaryF32,
// compareF32, fmaF32, sumF32 and sgemm. Each has a pure-Go default that is
// the definition of its result; a replacement must match it (to rounding for
// transcendental functions) and must accept dst aliasing a source exactly.
//
// # Memory limit
//
// The environment variable SHADERFLOW_CPU_MEMORY_LIMIT (bytes) or
// Config.MemoryLimit caps the bytes a device may have allocated at once;
// exceeding it returns an error wrapping device.ErrOutOfMemory, which lets
// memory-pool tests exercise out-of-memory paths.
package cpu
