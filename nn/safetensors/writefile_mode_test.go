package safetensors

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWriteFileKeepsModeAndFollowsLinks saves over a 0600 file through a
// symbolic link: the target is rewritten with its mode kept, and the link
// stays a link.
func TestWriteFileKeepsModeAndFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.safetensors")
	link := filepath.Join(dir, "link.safetensors")
	ts := []Tensor{{Name: "w", DType: F32, Shape: []int{1}, Data: make([]byte, 4)}}
	require.NoError(t, WriteFile(target, ts, nil))
	require.NoError(t, os.Chmod(target, 0o600))
	require.NoError(t, os.Symlink("real.safetensors", link))

	ts[0].Data = []byte{0, 0, 128, 63}
	require.NoError(t, WriteFile(link, ts, nil))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	require.NotZero(t, fi.Mode()&os.ModeSymlink, "the link was replaced by a file")
	fi, err = os.Stat(target)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	f, err := Read(b)
	require.NoError(t, err)
	require.Equal(t, []byte{0, 0, 128, 63}, f.Tensors[0].Data)

	fresh := filepath.Join(dir, "new.safetensors")
	require.NoError(t, WriteFile(fresh, ts, nil))
	fi, err = os.Stat(fresh)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
}
