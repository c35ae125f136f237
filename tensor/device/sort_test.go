package device

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSortKernelValidate accepts a full sort and a top k, and rejects a
// missing kernel, K outside the line, an output of the wrong shape or type
// and a view with no dimension.
func TestSortKernelValidate(t *testing.T) {
	i32 := func(shape ...int) View { return Contiguous(fakeBuf(4*NumElements(shape)), Int32, 0, shape) }
	require.NoError(t, (&SortKernel{X: f32(3, 5), Out: i32(3, 5)}).Validate())
	require.NoError(t, (&SortKernel{X: f32(3, 5), Out: i32(3, 2), K: 2, Descending: true}).Validate())
	for name, k := range map[string]*SortKernel{
		"nil":           nil,
		"K negative":    {X: f32(3, 5), Out: i32(3, 5), K: -1},
		"K too large":   {X: f32(3, 5), Out: i32(3, 6), K: 6},
		"Out shape":     {X: f32(3, 5), Out: i32(3, 4)},
		"Out dtype":     {X: f32(3, 5), Out: f32(3, 5)},
		"no dimension":  {X: f32(), Out: i32()},
		"line too long": {X: f32(1, MaxSortLine+1), Out: i32(1, MaxSortLine+1)},
	} {
		require.Error(t, k.Validate(), name)
	}
}
