// Package backends registers every Shaderflow backend: import it for its side
// effect when a program should be able to open any device.
//
//	import _ "github.com/shaderflow/shaderflow/tensor/backends"
package backends

import (
	// The CPU backend.
	_ "github.com/shaderflow/shaderflow/cpu"
)
