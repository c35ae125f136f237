package backends

import (
	// The CUDA backend (NVIDIA GPUs).
	_ "github.com/shaderflow/shaderflow/cuda"
	// The CPU backend.
	_ "github.com/shaderflow/shaderflow/cpu"
	// The Vulkan backend (SPIR-V compiled from shaders/*.wgsl).
	_ "github.com/shaderflow/shaderflow/gpu/vulkan"
)
