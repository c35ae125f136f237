//go:build cgo && linux

package cuda

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// copyOnce opens a device of f, runs one copy through the copy kernel,
// checks its result and closes the device.
func copyOnce(t *testing.T, f *fake) {
	t.Helper()
	d := f.open(t, 1<<16)
	vals := []float64{1, 2, 3, 4, 5, 6}
	src := gputest.Upload(t, d, device.Float32, vals)
	dst := gputest.Output(t, d, device.Float32, 0, []int{6})
	require.NoError(t, d.Copy(&device.CopyKernel{Dst: dst, Src: device.Contiguous(src, device.Float32, 0, []int{6})}))
	assert.Equal(t, vals, gputest.Download(t, d, dst.Buf, device.Float32, 0, 6))
	require.NoError(t, d.Close())
}

// cacheEntries returns the entry files of the disk cache at dir.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.mod"))
	require.NoError(t, err)
	return m
}

// TestDiskCacheAcrossDevices checks that a device opened after another
// loads the copy kernel from the disk cache instead of compiling it, that
// a corrupt or truncated entry, and one the driver refuses, is dropped and
// compiled again (and the rewritten entry serves the next device), and
// that "off" stores nothing.
func TestDiskCacheAcrossDevices(t *testing.T) {
	f := buildFake(t, nil, nil)
	dir := os.Getenv(EnvCache)
	compiles := func() int { return f.count(t, "nvrtcCreateProgram copy.cu") }

	copyOnce(t, f)
	require.Equal(t, 1, compiles())
	ents := cacheEntries(t, dir)
	require.Len(t, ents, 1)
	copyOnce(t, f)
	assert.Equal(t, 1, compiles(), "the second device loads the cached module")
	assert.Equal(t, 2, f.count(t, "cuModuleLoadData SFFAKE sm_90 cubin"))

	good, err := os.ReadFile(ents[0])
	require.NoError(t, err)
	damaged := map[string][]byte{
		"flipped image byte": append(append([]byte{}, good[:len(good)-1]...), good[len(good)-1]^1),
		"truncated":          good[:len(good)-5],
		"header only":        good[:diskHeader-1],
		"other key":          append(append(append([]byte{}, good[:8]...), make([]byte, 32)...), good[40:]...),
	}
	want := 1
	for name, b := range damaged {
		require.NoError(t, os.WriteFile(ents[0], b, 0o644))
		copyOnce(t, f)
		want++
		assert.Equal(t, want, compiles(), "%s: compiled again", name)
		again, err := os.ReadFile(ents[0])
		require.NoError(t, err)
		assert.False(t, bytes.Equal(b, again), "%s: the entry is rewritten", name)
		copyOnce(t, f)
		assert.Equal(t, want, compiles(), "%s: the rewritten entry serves the next device", name)
	}

	t.Setenv("SF_FAKE_CUDA_FAIL", "cuModuleLoadData=200*1")
	copyOnce(t, f)
	want++
	assert.Equal(t, want, compiles(), "an image the driver refuses is compiled again")
	t.Setenv("SF_FAKE_CUDA_FAIL", "")

	off := t.TempDir()
	t.Setenv(EnvCache, "off")
	copyOnce(t, f)
	assert.Equal(t, want+1, compiles(), "no cache: compiled")
	assert.Empty(t, cacheEntries(t, off))
}

// TestDiskCacheAcrossProcesses runs the copy in a child process (this
// test binary running TestDiskCacheChild) after this one compiled it: the
// child loads the module from the disk cache, so the fake NVRTC, whose log
// both processes append to, compiled once.
func TestDiskCacheAcrossProcesses(t *testing.T) {
	if os.Getenv("SF_DISKCACHE_CHILD") != "" {
		t.Skip("the child runs TestDiskCacheChild")
	}
	f := buildFake(t, nil, nil)
	copyOnce(t, f)
	require.Equal(t, 1, f.count(t, "nvrtcCreateProgram copy.cu"))
	cmd := exec.Command(os.Args[0], "-test.run=^TestDiskCacheChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "SF_DISKCACHE_CHILD=1", EnvDriver+"="+f.driver, EnvNVRTC+"="+f.nvrtc)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "--- PASS: TestDiskCacheChild")
	assert.Equal(t, 2, f.count(t, "cuModuleLoadData SFFAKE sm_90 cubin"), "the child loaded the module")
	assert.Equal(t, 1, f.count(t, "nvrtcCreateProgram copy.cu"), "and did not compile it")
}

// TestDiskCacheChild is TestDiskCacheAcrossProcesses's child: it runs the
// copy through the fake that its environment names.
func TestDiskCacheChild(t *testing.T) {
	if os.Getenv("SF_DISKCACHE_CHILD") == "" {
		t.Skip("run by TestDiskCacheAcrossProcesses")
	}
	f := &fake{driver: os.Getenv(EnvDriver), nvrtc: os.Getenv(EnvNVRTC)}
	copyOnce(t, f)
}

// TestDiskCacheTrim checks the size bound: storing past the limit removes
// the entries used least recently, a hit counting as a use, and leaves
// temporary files of a live writer alone.
func TestDiskCacheTrim(t *testing.T) {
	c := &diskCache{dir: t.TempDir(), limit: 3 * (diskHeader + 100)}
	img := make([]byte, 100)
	keys := make([]cacheKey, 5)
	for i := range keys {
		keys[i] = c.key(moduleKey{byte(i)}, "sm_90", 13, 0)
	}
	tmp := filepath.Join(c.dir, ".tmp-live")
	require.NoError(t, os.WriteFile(tmp, img, 0o644))
	for i := range 3 {
		require.NoError(t, c.put(keys[i], img, true))
		old := time.Now().Add(time.Duration(i-10) * time.Minute)
		require.NoError(t, os.Chtimes(c.path(keys[i]), old, old))
	}
	_, _, ok := c.get(keys[0]) // now the most recently used
	require.True(t, ok)
	require.NoError(t, c.put(keys[3], img, false))
	_, _, ok = c.get(keys[1])
	assert.False(t, ok, "the least recently used entry went")
	for _, i := range []int{0, 2, 3} {
		got, cubin, ok := c.get(keys[i])
		assert.True(t, ok, "entry %d", i)
		assert.Equal(t, img, got)
		assert.Equal(t, i != 3, cubin)
	}
	assert.FileExists(t, tmp)
	assert.Len(t, cacheEntries(t, c.dir), 3)
	assert.NotEqual(t, keys[0], c.key(moduleKey{0}, "sm_80", 13, 0), "the architecture is part of the key")
	assert.NotEqual(t, keys[0], c.key(moduleKey{0}, "sm_90", 12, 8), "NVRTC's version is part of the key")
}
