package fakecuda

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKernelCacheIsBounded checks that prepareKernelCache keeps a cache
// under the limit and empties one over it.
func TestKernelCacheIsBounded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	require.NoError(t, prepareKernelCache(dir))
	small := filepath.Join(dir, "small.so")
	require.NoError(t, os.WriteFile(small, []byte("kernel"), 0o644))
	require.NoError(t, prepareKernelCache(dir))
	require.FileExists(t, small)
	// A sparse file reports its size without taking the disk space.
	large := filepath.Join(dir, "large.so")
	f, err := os.Create(large)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(kernelCacheLimit))
	require.NoError(t, f.Close())
	require.NoError(t, prepareKernelCache(dir))
	require.NoFileExists(t, small)
	require.NoFileExists(t, large)
	require.DirExists(t, dir)
}
