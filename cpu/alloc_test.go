package cpu

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLargeBuffers checks buffers of hugeMin bytes and more: zeroed,
// aligned, usable, released by Free (which then refuses further use), and
// unmapped when collected without Free.
func TestLargeBuffers(t *testing.T) {
	d := newDevice(t, 2)
	base := mappedBytes.Load()
	n := int64(hugeMin + 12345)
	b, err := d.Alloc(n)
	require.NoError(t, err)
	data, err := d.data(b)
	require.NoError(t, err)
	require.Len(t, data, int(n))
	assert.Zero(t, uintptrOf(data)%alignment, "aligned")
	for i := 0; i < len(data); i += 4096 {
		require.Zero(t, data[i], "zeroed at %d", i)
	}
	src := []byte{1, 2, 3}
	require.NoError(t, d.Write(b, n-3, src))
	got := make([]byte, 3)
	require.NoError(t, d.Read(b, n-3, got))
	assert.Equal(t, src, got)
	if runtime.GOOS == "linux" {
		assert.Equal(t, base+n, mappedBytes.Load(), "mapped")
	}
	d.Free(b)
	assert.Equal(t, base, mappedBytes.Load(), "unmapped by Free")
	assert.Error(t, d.Read(b, 0, got), "use after Free")
	d.Free(b) // a second Free does nothing

	func() {
		for range 3 {
			_, err := d.Alloc(n) // never freed
			require.NoError(t, err)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for mappedBytes.Load() != base && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	assert.Equal(t, base, mappedBytes.Load(), "unmapped when collected")
}
