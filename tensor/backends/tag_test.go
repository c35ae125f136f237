//go:build !shaderflow_nowebgpu

package backends_test

// withWebGPU says whether this build includes the WebGPU backend.
const withWebGPU = true
