// Package cuda is Shaderflow's backend for NVIDIA GPUs through the CUDA
// driver API. It registers the backend "cuda" with package device.
//
// Nothing is linked: the driver (libcuda.so.1), NVRTC (libnvrtc.so.13 or
// .12) and, later, cuBLAS are opened with dlopen at run time and their entry
// points resolved through cuGetProcAddress at CUDA 12.0's ABI (dlsym of the
// versioned symbols where the driver lacks it), so a binary that imports this
// package needs only libc and runs anywhere; without a driver, or built with
// CGO_ENABLED=0, the backend is listed as unavailable with what to install.
// SHADERFLOW_CUDA_DRIVER, SHADERFLOW_CUDA_NVRTC and SHADERFLOW_CUDA_CUBLAS
// name the libraries explicitly; otherwise the sonames, /usr/local/cuda*,
// /usr/local/nvidia/lib64 and NVIDIA's Python wheels are searched.
//
// Each device uses its primary context and one non-blocking stream; every
// operation is one cgo call that makes the context current and calls the
// driver. Memory is stream-ordered (cuMemAllocAsync) where the device
// supports memory pools, whose default pool keeps freed memory across
// synchronizations; host transfers go through a pinned staging buffer.
// Kernels are CUDA C, compiled by NVRTC at first use for the device's own
// sm_XY: Copy is embedded as it is; Elementwise and Reduce kernels are
// generated from their device.Programs (render.go, render_reduce.go) on top
// of kernels/ops.cuh, which defines every op's scalar semantics once, and
// cached per signature. Softmax, log-softmax and their gradients
// (device.RowSoftmaxer, RowSoftmaxGrader) are the fixed kernels of
// kernels/softmax.cu, compiled on top of ops.cuh: a warp or less a row for
// rows of up to 512 elements, a block a row beyond, each row read from
// global memory once where it fits in registers (16384 elements) and
// written once. Layer normalization rows and their gradient
// (device.RowNormalizer) are kernels/normalize.cu on the same row layout,
// plan and reductions (kernels/rows.cuh, rowsplan.go, rowslaunch.go): the
// mean, then the variance as the mean of squared deviations from the row
// held in registers, each row shifted by its first element and scaled by
// a power of two.
//
// An ungrouped convolution runs as matrix products over a patch matrix
// (convgemm.go, kernels/im2col.cu), grouped ones on the direct kernel.
//
// A repeated Elementwise, Reduce or generated MatMul kernel (the same in
// everything but its buffers) reuses its plan, its launch words and
// module, and only checks and binds its buffers (plancache.go); the fixed
// kernel files' modules are keyed by a hash computed once a process
// (fixedsource.go).
//
// Every kernel kind exists (MatMul also through cuBLAS where it is
// installed, for products too large or too deep for the generated kernel
// to finish sooner: preferGenerated), so tensor.Open("auto"), which tries
// cuda first, picks an
// NVIDIA GPU when the driver and NVRTC load. docs/cuda.md says what ran
// where, on hardware and through the test double.
package cuda
