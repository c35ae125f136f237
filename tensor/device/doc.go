// Package device is Shaderflow's device contract: the small, stable interface
// that every backend (cpu, gpu/vulkan, gpu/webgpu, cuda) implements and that the
// tensor front end, the fusion layer and the memory pool program against.
//
// A backend provides memory (Alloc, Free, Write, Read), a handful of kernel
// kinds rather than one entry point per op, and an explicit Sync that surfaces
// any deferred error:
//
//   - Elementwise: a fused Program over N strided input views writing M outputs
//     (unary, binary and ternary ops, comparisons, casts, random numbers,
//     optimizer updates are all elementwise programs);
//   - Reduce: sum/prod/max/min/argmax/argmin over trailing axes of an
//     iteration space, with an elementwise prologue and epilogue;
//   - MatMul: batched, with arbitrary strides (transposes and broadcast batch
//     dims cost nothing) and a fused epilogue;
//   - Conv and Pool: windowed kernels, forward and backward;
//   - Gather, Scatter (add) and Copy.
//
// Programs, the scalar semantics of every op (see Eval), the random-number
// generator and kernel validation live here so that backends share them rather
// than copy them. Backends register themselves with Register from an init
// function; backends never import each other nor the tensor front end.
//
// Each program op is one row of the op table (ops.go), from which validation,
// the CPU interpreter and the GPU code generators derive what they do. A new
// elementwise op is its row, its op_<name> function in shaders/ops.wgsl, its
// Tensor method and gradient rule in package tensor, and its conformance case;
// then go generate regenerates the SPIR-V and go run ./tools/opsdoc
// docs/ops.md (an op built from existing ones needs only the method and the
// case).
package device
