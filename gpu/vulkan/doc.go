// Package vulkan is Shaderflow's Vulkan backend: the portable-GPU kernels of
// package shaders, precompiled to SPIR-V by tools/spirv, run through any
// Vulkan 1.0+ driver (and through Mesa's lavapipe, a software Vulkan device
// on the CPU, where there is no GPU). It registers itself as "vulkan" with
// package device.
//
// # Loading
//
// The package loads the Vulkan loader at run time (dlopen of libvulkan.so.1,
// then libvulkan.so): building needs a C compiler but no Vulkan SDK or
// -dev package, and a machine without Vulkan gets an error wrapping
// device.ErrUnavailable that says what to install. The process has one
// Vulkan instance, shared by every device (the github.com/vulkan-go/vulkan
// binding keeps its function pointers in globals). With CGO_ENABLED=0 the
// package still builds and registers a backend whose Adapters reports that
// it was built without cgo.
//
// Cold-path calls (instance, devices, buffers, layouts, pools) go through
// the vulkan-go binding. The package's own C layer (native.c, with the
// minimal declarations of vkdecl.h, checked against the system's
// vulkan_core.h by a test) makes the Vulkan 1.1+ queries the binding lacks
// (driver name, subgroup size, maxMemoryAllocationSize, float16, float
// controls), the calls
// whose slice arguments the binding frees from a GC finalizer that can run
// while the call is still reading them (pipeline creation, queue families,
// layers), and everything on the per-kernel path: one cgo call, with its
// arguments in a C struct the Go side fills in place, records the optional
// barrier, binds the cached set (or writes a fresh or pushed one) and the
// pipeline, and dispatches.
//
// # Adapters
//
// Adapters lists the physical devices with a compute queue: discrete GPUs
// first, then integrated, virtual, other and CPU devices. Devices of type
// CPU, and lavapipe, llvmpipe and SwiftShader by name, are
// device.KindSoftwareGPU. Limits come from the adapter: MaxAllocBytes from
// maxMemoryAllocationSize (Vulkan 1.1) capped by the largest device-local
// heap, MaxBindingBytes from maxStorageBufferRange, MaxBuffersPerKernel from
// maxPerStageDescriptorStorageBuffers minus the params binding and capped by
// shaders.DataBindings, MaxWorkgroups from maxComputeWorkGroupCount.
//
// # Memory
//
// Every buffer has its own VkDeviceMemory. Where one memory type is both
// device-local and host-visible on the largest heap (lavapipe, integrated
// GPUs), data buffers are persistently mapped: Write to a buffer no pending
// work uses, and every Read, copy directly. Otherwise Write stages the data
// in the current batch's upload arena (or a dedicated staging buffer for
// large writes) and records a copy, ordered with the kernels around it; Read
// of unmapped memory copies through a staging buffer. Free of a buffer still
// used by recorded or submitted work takes effect when that work completes;
// Free is safe from any goroutine (finalizers).
//
// # Batching and barriers
//
// Kernels are recorded into a ring of three command buffers. A batch is
// submitted when it holds 256 dispatches or its 1 MiB part of the upload
// arena (params words and small writes; one host-visible buffer shared by
// the three batches) is full, and at every Read and Sync. A pipeline barrier
// is recorded only before a command that reads a buffer written, or writes a
// buffer read or written, since the last barrier (Stats counts them); each
// command buffer starts with one barrier (ordering earlier submissions) and
// ends with one that makes writes visible to the host.
//
// # Descriptor sets
//
// Every kernel uses one set layout: binding 0 holds the launch's params,
// bindings 1..15 its data buffers (the dummy buffer where unused). How a
// dispatch gets its descriptors is chosen when a device opens
// (EnvDescriptors):
//
//   - cache (the default): binding 0 is a dynamic storage buffer over the
//     arena (64 KiB range), so a set depends only on the data bindings, and
//     sets are cached by them (buffer ids, never reused, with offsets and
//     ranges) across dispatches and batches. A hit binds the set with the
//     params' offset as the dynamic offset. The cache holds 1024 sets, more
//     than the 768 dispatches that can be pending, and rewrites only a set
//     no recorded or submitted work uses (the least recently used one when
//     full); when a buffer is released, which happens only once the work
//     using it completed, the sets binding it are dropped and kept for
//     reuse. Writing a cached set on a miss costs more than a fresh set, so
//     while fewer than half the recent lookups hit, only one miss in 16 is
//     cached and the others take fresh sets. Launches with more than 64 KiB
//     of params, or a full cache whose oldest set is still in use, get a
//     fresh set too. Stats counts hits, misses and fresh sets.
//   - push: VK_KHR_push_descriptor where the adapter has it (else cache):
//     the descriptors are written into the command buffer, no sets at all.
//   - fresh: a new set per dispatch from the batch's pool, reset when the
//     batch completes (the behaviour before the cache; for measurements).
//
// The cache is the default because it cost the least per dispatch on
// lavapipe when bindings repeat and little more when they do not; push
// descriptors cost more there (figures in docs/measurements.md; on a real
// GPU the balance may differ: measure with EnvDescriptors).
//
// # Kernels
//
// Package gpu validates each kernel and encodes it into a Launch (params
// words, bindings, workgroup count); the backend uploads the params to the
// arena (binding 0), binds the data bindings 1..n and a small dummy buffer
// to the unused ones, and dispatches a 2-D grid when the workgroups exceed
// one dimension's limit. Devices enable robustBufferAccess where the adapter
// has it, so that a faulty kernel's out-of-range access reads zero or writes
// nothing instead of corrupting memory (on lavapipe buffers are host heap
// memory).
//
// Fused programs (elementwise bodies, reduction prologues and epilogues,
// matmul and conv epilogues) are compiled at run time, with no external
// tool: each kind's precompiled SPIR-V carries placeholder hook functions
// (shaders/hooks.wgsl) whose names tools/spirv keeps, and package
// internal/spv replaces their bodies with straight-line SPIR-V emitted in Go
// from the launch's programs (gpu.Hook), calling the same ops.wgsl functions
// as the WGSL that the WebGPU backend generates. A program's constants and
// random-stream keys stay in the params, so programs that differ only in
// them share a pipeline. Shader modules are cached per (kind, gpu.HooksKey)
// and pipelines per (kind, hooks key, entry point), for the device's
// lifetime; kinds without hooks get one pipeline per entry point.
//
// Every kernel declares SignedZeroInfNanPreserve for 32-bit floats, so that
// the driver may not assume away NaN and infinity (lavapipe folds x - x to
// 0 otherwise). Devices whose adapter offers VK_KHR_shader_float_controls
// with shaderSignedZeroInfNanPreserveFloat32 open with that extension;
// on others the declaration is removed from each module and only the
// guards of ops.wgsl remain (floatcontrols.go).
//
// # Performance on lavapipe
//
// lavapipe is a correctness device; its numbers are CPU numbers
// (docs/measurements.md records them). Specialized code makes every
// distinct program signature a pipeline of its own, which lavapipe compiles
// with LLVM at its first dispatch (tens of milliseconds for an elementwise
// chain, seconds for a matmul with an epilogue); Mesa caches compiled
// shaders on disk (~/.cache/mesa_shader_cache), so later processes skip
// most of this. The kernels call each hook from one site, because code
// inlined at many call sites multiplies that compilation time.
//
// # Errors
//
// Gather and scatter report out-of-range indices through a status buffer
// (one slot per launch, 1024 slots between checks); Sync and Read turn set
// flags into errors. VK_ERROR_DEVICE_LOST (or a batch that does not finish
// within ten minutes) makes the device lost: every later call returns an
// error wrapping device.ErrDeviceLost. Out-of-memory results wrap
// device.ErrOutOfMemory. With SHADERFLOW_VULKAN_VALIDATION=1 in the
// environment when the process first touches Vulkan, the Khronos validation
// layer is enabled with a VK_EXT_debug_report callback that records every
// error (and makes the faulty call fail instead of crashing); the next Sync
// or Read returns the recorded messages as a *ValidationError. The log is
// process-wide: with several devices open, each reports every message
// recorded since its own previous report.
//
// # Profiling
//
// Devices whose compute queue supports timestamps (Info().Features.
// Timestamps) time every kernel while SetProfiling(true) is on (turning it
// on submits the batch being recorded, so the next kernel is timed):
// timestamp queries bracket each dispatch, and KernelTimes returns the
// completed kernels' device times with the kernel call that recorded each
// (KernelCalls) and its start on the host's clock. That start is an
// estimate: the host time of device tick 0 is taken as the latest
// (submission time - first timestamp) over the profiled batches, so no
// kernel appears to start before its batch was submitted, and the estimate
// is tight for batches submitted to an idle device (those of Sync and Read).
// The methods implement device.KernelTimer: package tensor turns them on
// with its profiler and records each kernel's device time under the
// launch's name, next to its host time (see package tensor/profiler).
package vulkan
