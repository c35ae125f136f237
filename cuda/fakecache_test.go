//go:build cgo && linux

package cuda

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// TestFakeNVRTCCachesKernels checks the test double's cache of compiled
// kernels (SF_FAKE_NVRTC_CACHE): a device that compiles a kernel compiled
// before gets it from the cache and computes the same result, and a cached
// source that is not the program's is compiled again.
func TestFakeNVRTCCachesKernels(t *testing.T) {
	f := buildFake(t, nil, nil)
	cache := t.TempDir()
	t.Setenv("SF_FAKE_NVRTC_CACHE", cache)
	src := make([]byte, 30*4)
	for i := range src {
		src[i] = byte(i*7 + 3)
	}
	transpose := func(dt device.DType) []byte {
		// A fresh module cache, so that the device asks NVRTC again.
		t.Setenv(EnvCache, t.TempDir())
		d := f.open(t, 256)
		sb := upload(t, d, src[:30*dt.Size()])
		db := upload(t, d, make([]byte, 30*dt.Size()))
		require.NoError(t, d.Copy(&device.CopyKernel{
			Dst: device.View{Buf: db, DType: dt, Shape: []int{5, 6}, Strides: []int{6, 1}},
			Src: device.View{Buf: sb, DType: dt, Shape: []int{5, 6}, Strides: []int{1, 5}}}))
		got := make([]byte, db.Bytes())
		require.NoError(t, d.Read(db, 0, got))
		return got
	}
	first := transpose(device.Float32)
	require.Equal(t, 1, f.count(t, "host compile ok"))
	require.Equal(t, 0, f.count(t, "host compile cached"))
	require.Equal(t, first, transpose(device.Float32))
	require.Equal(t, 1, f.count(t, "host compile ok"), "the second device's kernel comes from the cache")
	require.Equal(t, 1, f.count(t, "host compile cached"))
	// A cached source that differs from the program (as a hash collision
	// would) is not used.
	cached, err := filepath.Glob(filepath.Join(cache, "*.cpp"))
	require.NoError(t, err)
	require.Len(t, cached, 1)
	require.NoError(t, os.WriteFile(cached[0], []byte("// another program\n"), 0o644))
	require.Equal(t, first, transpose(device.Float32))
	require.Equal(t, 2, f.count(t, "host compile ok"), "a differing cached source is compiled again")
}
