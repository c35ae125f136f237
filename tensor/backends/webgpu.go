//go:build !shaderflow_nowebgpu

package backends

// The WebGPU backend (wgpu-native over Vulkan, WGSL); the build tag
// shaderflow_nowebgpu leaves it out.
import _ "github.com/shaderflow/shaderflow/gpu/webgpu"
