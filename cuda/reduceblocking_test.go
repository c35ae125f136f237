package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReduceBlocking checks the kernel rdBlocking picks for the shapes it
// was sized for (an H200's 132 SMs).
func TestReduceBlocking(t *testing.T) {
	for _, c := range []struct {
		n, rn         int
		access        rdAccess
		groups, parts int
	}{
		{1 << 20, 16, rdRows, 0, 0},       // short rows: a thread an output
		{8192, 8192, rdRows, 1, 1},        // a row a block
		{4096, 100, rdRows, 2, 1},         // two rows of 128 lanes a block
		{1 << 20, 40, rdRows, 4, 1},       // many short rows still coalesce in blocks
		{8192, 8192, rdColumns, 32, 2},    // 32 columns a block, split in two
		{1 << 16, 8192, rdColumns, 0, 0},  // enough columns for a thread each
		{1, 1 << 26, rdRows, 1, 1024},     // a full sum: 1024 parts, folded
		{3, 40000, rdScattered, 1, 10},    // strided rows split into parts of 4096
		{1, 8191, rdRows, 1, 1},           // too short to split
		{1024, 1 << 16, rdRows, 1, 1},     // enough blocks already
		{2, 20000, rdRows, 1, 5},          // parts of at least rdPartMin
		{1, 1 << 30, rdColumns, 32, 1024}, // one column: at most rdMaxParts
		{100, 1 << 20, rdRows, 1, 11},     // parts fill rdTargetBlocks
		{33, 9000, rdColumns, 32, 3},      // two column blocks of three parts
		{5, 3000, rdRows, 1, 1},           // the edge tests' long rows
		{70, 300, rdColumns, 32, 1},       // and their columns
		{1, 0, rdRows, 0, 0},              // nothing to reduce
		{7, 1027, rdRows, 1, 1},           // gputest's long rows
		{7, 1027, rdColumns, 32, 1},       // and their transposes
		{2000, 5, rdColumns, 0, 0},        // gputest's short rows
		{12, 30, rdScattered, 0, 0},       // and its small blocks
		{1, 513, rdRows, 1, 1},            // and its scalar
		{1000, 64, rdRows, 4, 1},          // a row per 64 lanes
		{1, 2 * rdPartMin, rdRows, 1, 2},  // the shortest split
	} {
		g, p := rdBlocking(c.n, c.rn, c.access)
		assert.Equal(t, []int{c.groups, c.parts}, []int{g, p}, "%d outputs of %d elements, access %d", c.n, c.rn, c.access)
	}
	assert.Equal(t, rdThreads, rdRowGroups(1))
	assert.Equal(t, 1, rdRowGroups(1<<20))
	assert.Equal(t, 64, rdRowGroups(3))
}
