package backends_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	_ "github.com/shaderflow/shaderflow/tensor/backends"
	"github.com/stretchr/testify/require"
)

// registered returns the names of the registered backends.
func registered() map[string]bool {
	names := map[string]bool{}
	for _, b := range tensor.Backends() {
		names[b.Name] = true
	}
	return names
}

func TestRegistersEveryBackend(t *testing.T) {
	names := registered()
	require.True(t, names["cpu"], "%v", names)
	require.True(t, names["vulkan"], "%v", names)
	require.Equal(t, withWebGPU, names["webgpu"], "%v", names)
}
