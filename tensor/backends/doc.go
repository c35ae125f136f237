// Package backends registers all of Shaderflow's backends: import it for its
// side effect when a program should be able to open any device.
//
//	import _ "github.com/shaderflow/shaderflow/tensor/backends"
//
// Every backend is also a package of its own that registers itself when
// imported, so a program can carry only the ones it needs, e.g. the CPU
// alone (the smallest binary, no cgo needed):
//
//	import _ "github.com/shaderflow/shaderflow/cpu"
//
// or the CPU and Vulkan:
//
//	import (
//		_ "github.com/shaderflow/shaderflow/cpu"
//		_ "github.com/shaderflow/shaderflow/gpu/vulkan"
//	)
//
// Building with the tag shaderflow_nowebgpu (go build -tags
// shaderflow_nowebgpu) leaves the WebGPU backend, the largest, out of this
// package. docs/binary-size.md gives the sizes each choice measured.
package backends
