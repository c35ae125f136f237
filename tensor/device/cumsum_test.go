package device

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCumsumKernelValidate accepts running sums of the four summed types
// and rejects a missing kernel, another type, a mismatched output and a
// view with no dimension.
func TestCumsumKernelValidate(t *testing.T) {
	view := func(dt DType, shape ...int) View {
		return Contiguous(fakeBuf(int64(dt.Size()*NumElements(shape))), dt, 0, shape)
	}
	for _, dt := range []DType{Float32, Float64, Int32, Int64} {
		require.NoError(t, (&CumsumKernel{X: view(dt, 3, 5), Out: view(dt, 3, 5)}).Validate(), "%s", dt)
	}
	for name, k := range map[string]*CumsumKernel{
		"nil":          nil,
		"Float16":      {X: view(Float16, 3, 5), Out: view(Float16, 3, 5)},
		"Out dtype":    {X: f32(3, 5), Out: view(Float64, 3, 5)},
		"Out shape":    {X: f32(3, 5), Out: f32(5, 3)},
		"no dimension": {X: f32(), Out: f32()},
	} {
		require.Error(t, k.Validate(), name)
	}
}
