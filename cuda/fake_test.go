//go:build cgo && linux

package cuda

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/cuda/internal/fakecuda"
)

// fake is a fake driver and NVRTC built for one test.
type fake struct {
	dir, driver, nvrtc, log string
}

// buildFake compiles testdata's fake libcuda and fake NVRTC (which compiles
// kernels for the host with g++ and fakeprelude.h) with its builtins into a
// temporary directory, with extra C flags for each, and points
// SF_FAKE_CUDA_LOG at a fresh log, SF_FAKE_NVRTC_DIR at the directory,
// SF_FAKE_NVRTC_CACHE at the machine's cache of compiled kernels and the
// disk cache of modules (EnvCache) at an empty directory in it.
func buildFake(t testing.TB, driverFlags, nvrtcFlags []string) *fake {
	t.Helper()
	if err := fakecuda.Tools(); err != nil {
		t.Skip(err)
	}
	l, err := fakecuda.Build(t.TempDir(), "testdata", driverFlags, nvrtcFlags)
	require.NoError(t, err)
	f := &fake{dir: l.Dir, driver: l.Driver, nvrtc: l.NVRTC, log: l.Log}
	t.Setenv("SF_FAKE_CUDA_LOG", f.log)
	t.Setenv("SF_FAKE_NVRTC_DIR", f.dir)
	t.Setenv("SF_FAKE_NVRTC_CACHE", l.KernelCache)
	t.Setenv("SF_FAKE_CUDA_FAIL", "")
	t.Setenv("SF_FAKE_NVRTC_FAIL", "")
	t.Setenv(EnvCache, filepath.Join(f.dir, "modcache"))
	return f
}

// env is a search environment that finds the fake through the variables.
func (f *fake) env(extra map[string]string) searchEnv {
	vars := map[string]string{EnvDriver: f.driver, EnvNVRTC: f.nvrtc}
	for k, v := range extra {
		vars[k] = v
	}
	return searchEnv{getenv: func(k string) string { return vars[k] }, glob: filepath.Glob}
}

// open loads the fake and opens device 0 with a staging buffer of staging
// bytes; the device is closed when the test ends.
func (f *fake) open(t testing.TB, staging int) *Device {
	t.Helper()
	l := loadLibs(f.env(nil))
	require.NoError(t, l.err)
	d, err := open(l.drv, l.nv, 0, staging)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// calls returns the fake's log lines.
func (f *fake) calls(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile(f.log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// count returns how many log lines start with prefix.
func (f *fake) count(t testing.TB, prefix string) int {
	n := 0
	for _, l := range f.calls(t) {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}
