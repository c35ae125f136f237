package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestPlanIndexed checks the index kernels' parameter words: the axis
// first whatever its place, dimensions of size one dropped and contiguous
// neighbours merged around it, and no launch for an empty Index.
func TestPlanIndexed(t *testing.T) {
	f32, i32 := device.Float32, device.Int32
	// Gather along axis 1 of [2, 5, 1, 3, 4] with Index [2, 2, 1, 3, 4]:
	// dimensions 3 and 4 merge (12 elements), 2 goes, the axis leads.
	src := device.Contiguous(nil, f32, 7, []int{2, 5, 1, 3, 4})
	idx := device.Contiguous(nil, i32, 0, []int{2, 2, 1, 3, 4})
	out := device.Contiguous(nil, f32, 1, []int{2, 2, 1, 3, 4})
	ws := planIndexed(1, [3]device.View{src, idx, out}, [3]uint64{100, 200, 300}, 4)
	require.Len(t, ws, 1)
	w := ws[0]
	assert.Equal(t, []int64{48, 3, 5, 4}, w[:4], "n, rank, size, elem")
	assert.Equal(t, []int64{2, 2, 12}, w[idxShape:idxShape+3])
	assert.Equal(t, []int64{100, 200, 300}, w[idxPtr:idxPtr+3])
	assert.Equal(t, []int64{7, 0, 1}, w[idxOff:idxOff+3])
	assert.Equal(t, []int64{12, 60, 1}, w[idxStride:idxStride+3], "Src's strides")
	assert.Equal(t, []int64{12, 24, 1}, w[idxStride+ewMaxRank:idxStride+ewMaxRank+3], "Index's strides")

	empty := device.Contiguous(nil, i32, 0, []int{2, 0, 1, 3, 4})
	assert.Empty(t, planIndexed(1, [3]device.View{src, empty, empty}, [3]uint64{}, 4))
}
