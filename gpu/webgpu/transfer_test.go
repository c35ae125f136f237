//go:build cgo

package webgpu

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
)

// TestTransfersGoInChunks lowers the transfer chunk to 4 KiB and writes and
// reads 200 KB at unaligned offsets: the bytes must survive and the staging
// buffer must stay the size of one chunk (a whole-size staging buffer is
// what failed for reads between 1 and 2 GiB, rounded up past wgpu's 2^31-1
// byte limit).
func TestTransfersGoInChunks(t *testing.T) {
	defer func(c int64) { transferChunk = c }(transferChunk)
	transferChunk = 4096
	d := gputest.Open(t, Name).(*Device)
	const n = 200_000
	b := gputest.Alloc(t, d, n+8)
	want := make([]byte, n)
	for i := range want {
		want[i] = byte(rand.IntN(256))
	}
	require.NoError(t, d.Write(b, 3, want))
	got := make([]byte, n-2)
	require.NoError(t, d.Read(b, 5, got))
	assert.Equal(t, want[2:], got)
	assert.LessOrEqual(t, d.stageCap, int64(1<<16), "the staging buffer holds one chunk (64 KiB at least)")
}
