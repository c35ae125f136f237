// Package webgpu is Shaderflow's WebGPU backend, on wgpu-native 0.17 through
// github.com/rajveermalviya/go-webgpu. Importing it registers the backend
// "webgpu" with the device registry.
//
// Kernels are the WGSL of package shaders with hook functions generated for
// each fused program (package gpu), compiled by wgpu at first use and cached
// by (kind, entry point, binding count, generated source).
//
// wgpu is asked for its Vulkan backend only (Metal on macOS), so a machine
// without a Vulkan driver gets a clear ErrUnavailable instead of a silent
// OpenGL fallback, and devices are opened with the adapter's real limits.
// The wrapper's MapAsync and OnSubmittedWorkDone hand C a Go-heap
// cgo.Handle that the garbage collector can invalidate; this package maps
// buffers through wgpu-native's C API with C-owned state instead
// (native.go), routes errors raised outside error scopes to C memory rather
// than wgpu-native's aborting default handler, and validates every kernel,
// range and buffer before wgpu sees it. All calls on a device hold its lock:
// wgpu's error scopes are per device.
//
// Completion is never awaited with wgpu's blocking poll: wgpu-core 0.17
// waits at most 5 s there and then treats the submission as finished,
// recycling its command buffers and freeing its memory although the device
// is still running it. lavapipe compiles a pipeline with LLVM at its first
// dispatch, inside the submission, so that happened (wrong results, then a
// segmentation fault). The package polls without blocking, which reads the
// real fence value, until the work is done (native.go, sf_wait).
//
// Launches are batched: many dispatches share one command encoder, compute
// pass and params buffer (each at its own dynamic offset), and are submitted
// when a result is read, before a queue write, or when a batch is full.
// Freed buffers and dropped bind groups are destroyed only once the queue is
// idle.
//
// Info reports the adapter's real limits; WebGPU exposes no memory size, so
// MemoryBytes is the system memory for a software adapter and 0 (unknown)
// otherwise. Features report no f16, subgroups or timestamps (the wgpu-native
// 0.17 shader compiler accepts neither f16 nor subgroup operations).
//
// Built without cgo, the package registers a backend whose Adapters explains
// that.
package webgpu
