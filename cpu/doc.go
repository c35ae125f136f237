// Package cpu is Shaderflow's CPU backend, registered as "cpu". It
// implements every kernel kind of the device contract in Go, with the inner
// loops in Go assembly SIMD kernels (AVX-512 or AVX2+FMA, from
// cpu/internal/vec and cpu/internal/gemm) and a pure-Go fallback, parallel
// across GOMAXPROCS.
//
// Buffers are 64-byte aligned Go byte slices. Kernels run in call order on
// one goroutine per device (stream.go) while the caller goes on, as on a
// GPU: a kernel method validates the kernel and returns its error, so a
// malformed kernel never touches memory, then queues a copy of it; Read and
// Sync wait for the queue and return the first error a kernel hit while
// running (an index out of range). Write and Free keep their order with the
// pending kernels. SHADERFLOW_CPU_SYNC=1 (Config.Synchronous) runs each
// kernel inside its method instead. The device times its kernels for the
// profiler (device.KernelTimer).
//
// Elementwise programs are interpreted over chunks of 2048 elements held in
// per-register typed scratch slices (L1-resident), one SIMD kernel call per
// instruction per chunk; contiguous operands are read, and results written,
// in place, and large transposed operands are first copied row-major with a
// blocked transpose. Reductions, matrix products and convolutions reuse the
// interpreter for their prologues and epilogues. Scalar semantics come from
// the device package (device.UnaryF32, device.BinaryF32, ...), so the CPU
// agrees with every other backend.
//
// Matrix products call sgemm with the operands' own layouts (row-major or
// transposed, any leading dimension; only views with no unit stride are
// packed first): with few batches each product is split over the workers by
// the gemm package, with many the workers take whole products, each followed
// by its part of the epilogue while the result is in cache. Convolutions
// lower to im2col and sgemm image by image (several small images side by
// side in one product), tile by tile of whole output rows; 2-D patches come
// from a zero-padded band of the tile's input rows, one block copy per
// kernel tap. Forward products with a height stride of one build only the
// patch rows of the first kernel row and sum over kernel rows, each reading
// them from its own offset (gemm.SgemmTaps), straight into the output;
// those with 3×3 windows and many channels use Winograd's F(2×2, 3×3)
// instead (2.25 times fewer multiplications, conv_winograd.go).
// 1×1 windows skip im2col (strided ones copy from the input, no band), and
// weight gradients are products
// over chunks of output positions of consecutive images, accumulated with
// beta = 1. Max pooling without indices folds along the width, then down
// the rows, with vector maxima. A product with a long depth over few results
// (a weight gradient over every token of a batch) runs as one serial
// product per worker over a part of the depth, the parts then added.
//
// The row kernels (softmax, log-softmax, their gradient, normalization)
// and the fused attention kernels (device.Attender) work a row, or a block
// of query rows of one batch element, at a time in the worker's scratch;
// attention never stores its weights: the backward recomputes them from
// the rows' log-sum-exp.
//
// Work is shared by the caller and a process-wide pool of helper goroutines
// that lives across kernels; small kernels run inline on the caller.
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
// The inner loops are function values (see kernels_f32.go and sgemm.go):
// unaryF32, binaryF32, binaryF32Scalar, scalarBinaryF32, compareF32,
// fmaF32, sumF32, maxF32/minF32/argMaxF32/argMinF32, the half-precision
// conversions and sgemm. Each has a pure-Go default that is the definition
// of its result; at init (simd.go) they are pointed at cpu/internal/vec and
// cpu/internal/gemm, which choose AVX-512, AVX2+FMA or pure Go from the CPU,
// the purego build tag and the environment variable SHADERFLOW_CPU_ISA
// (avx512, avx2 or go caps the level). Info().Features.SIMD and ISA name the
// level in use. Arithmetic, conversions and reductions give the same results
// as the pure-Go kernels (reductions up to summation order; Fma rounds
// once); the transcendental functions are within vec's documented error
// bounds (at most 1 to 3 ulp). PeakGFLOPS and MeasureBandwidth measure the
// machine's limits for benchmark reports.
//
// # Memory limit
//
// The environment variable SHADERFLOW_CPU_MEMORY_LIMIT (bytes) or
// Config.MemoryLimit caps the bytes a device may have allocated at once;
// exceeding it returns an error wrapping device.ErrOutOfMemory, which lets
// memory-pool tests exercise out-of-memory paths.
package cpu
