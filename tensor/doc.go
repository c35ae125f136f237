// Package tensor is Shaderflow's user-facing tensor library: n-dimensional
// arrays on a device chosen at run time (CPU, Vulkan, WebGPU), with
// zero-copy views, NumPy broadcasting, a PyTorch-familiar set of operations,
// laziness with kernel fusion, a caching memory pool, a profiler and autograd.
//
// Operations are recorded, not run: a Tensor is a view (shape, strides,
// offset) of a node of a lazy graph. Reading a result (Float32s, Item,
// Realize, Device.Sync) schedules the graph: chains of elementwise operations
// become one kernel, and they fuse into the prologue of reductions and into
// the epilogue of matrix products and convolutions. Runtime failures (out of
// memory, a lost device, an index out of range) surface as errors from the
// reading call. Programmer errors (shapes that do not broadcast, a bad axis,
// mixing devices) panic at the call site with a message naming the operation
// and the shapes; Catch turns such panics into errors.
//
// Memory is released deterministically: Release frees a tensor's handle,
// Device.Scope releases every tensor created inside it except those kept, and
// a cleanup attached to each handle is only a safety net.
//
// Environment variables: SHADERFLOW_BACKEND overrides Open("auto");
// SHADERFLOW_FUSION=0 turns fusion off.
package tensor
