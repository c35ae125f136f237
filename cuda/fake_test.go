//go:build cgo && linux

package cuda

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fake is a fake driver and NVRTC built for one test.
type fake struct {
	dir, driver, nvrtc, log string
}

// buildFake compiles testdata's fake libcuda and fake NVRTC (which compiles
// kernels for the host with g++ and fakeprelude.h) with its builtins into a
// temporary directory, with extra C flags for each, and points
// SF_FAKE_CUDA_LOG at a fresh log and SF_FAKE_NVRTC_DIR at the directory.
func buildFake(t *testing.T, driverFlags, nvrtcFlags []string) *fake {
	t.Helper()
	for _, tool := range []string{"gcc", "g++"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("gcc and g++ are needed to build the fake CUDA driver: ", err)
		}
	}
	dir := t.TempDir()
	prelude, err := filepath.Abs("testdata/fakeprelude.h")
	require.NoError(t, err)
	f := &fake{
		dir:    dir,
		driver: filepath.Join(dir, "libcuda.so.1"),
		nvrtc:  filepath.Join(dir, "libnvrtc.so.13"),
		log:    filepath.Join(dir, "calls.log"),
	}
	gcc := func(out, src string, flags ...string) {
		args := append([]string{"-shared", "-fPIC", "-O0", "-Wall", "-Werror", "-o", out, filepath.Join("testdata", src)}, flags...)
		b, err := exec.Command("gcc", args...).CombinedOutput()
		require.NoError(t, err, "gcc %s: %s", strings.Join(args, " "), b)
	}
	gcc(f.driver, "fakecuda.c", append([]string{"-ldl"}, driverFlags...)...)
	gcc(f.nvrtc, "fakenvrtc.c", append([]string{"-ldl", `-DSF_FAKE_PRELUDE="` + prelude + `"`}, nvrtcFlags...)...)
	gcc(filepath.Join(dir, "libnvrtc-builtins.so.13.0"), "fakebuiltins.c")
	t.Setenv("SF_FAKE_CUDA_LOG", f.log)
	t.Setenv("SF_FAKE_NVRTC_DIR", dir)
	t.Setenv("SF_FAKE_CUDA_FAIL", "")
	t.Setenv("SF_FAKE_NVRTC_FAIL", "")
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
func (f *fake) open(t *testing.T, staging int) *Device {
	t.Helper()
	l := loadLibs(f.env(nil))
	require.NoError(t, l.err)
	d, err := open(l.drv, l.nv, 0, staging)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// calls returns the fake's log lines.
func (f *fake) calls(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(f.log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// count returns how many log lines start with prefix.
func (f *fake) count(t *testing.T, prefix string) int {
	n := 0
	for _, l := range f.calls(t) {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}
