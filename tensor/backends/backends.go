// Package backends registers every Shaderflow backend: import it for its side
// effect when a program should be able to open any device.
//
//	import _ "github.com/shaderflow/shaderflow/tensor/backends"
package backends

import (
	// The CPU backend.
	_ "github.com/shaderflow/shaderflow/cpu"
	// The Vulkan backend (SPIR-V compiled from shaders/*.wgsl).
	_ "github.com/shaderflow/shaderflow/gpu/vulkan"
	// The WebGPU backend (wgpu-native over Vulkan, WGSL).
	_ "github.com/shaderflow/shaderflow/gpu/webgpu"
)
