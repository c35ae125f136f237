package cuda

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeFS is a search environment over a fixed set of files (and the
// directories above them) and variables.
func fakeFS(vars map[string]string, files ...string) searchEnv {
	paths := map[string]bool{}
	for _, f := range files {
		for p := f; p != "/"; p = filepath.Dir(p) {
			paths[p] = true
		}
	}
	return searchEnv{
		getenv: func(k string) string { return vars[k] },
		glob: func(pat string) ([]string, error) {
			var out []string
			for p := range paths {
				if ok, _ := filepath.Match(pat, p); ok {
					out = append(out, p)
				}
			}
			return out, nil
		},
	}
}

func TestCandidatesEnvironmentVariableAlone(t *testing.T) {
	e := fakeFS(map[string]string{EnvNVRTC: "/opt/x/libnvrtc.so.13"}, "/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so.13")
	assert.Equal(t, []string{"/opt/x/libnvrtc.so.13"}, e.candidates(nvrtcLib))
}

func TestCandidatesOrder(t *testing.T) {
	files := []string{
		"/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so.12",
		"/usr/local/cuda-13.0/targets/x86_64-linux/lib/libnvrtc.so.13",
		"/usr/local/lib/python3.11/dist-packages/nvidia/cu13/lib/libnvrtc.so.13",
		"/home/u/.local/lib/python3.12/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
		"/usr/local/lib/python3.11/dist-packages/nvidia/cublas/lib/libcublas.so.12",
		"/usr/local/nvidia/lib64/libcuda.so.1",
	}
	e := fakeFS(map[string]string{"HOME": "/home/u"}, files...)
	assert.Equal(t, []string{
		"libnvrtc.so.13", "libnvrtc.so.12",
		files[0], files[1], files[2], files[3],
	}, e.candidates(nvrtcLib))
	assert.Equal(t, []string{"libcublas.so.13", "libcublas.so.12", files[4]}, e.candidates(cublasLib))
	assert.Equal(t, []string{"libcuda.so.1", files[5]}, e.candidates(driverLib), "pip wheels and the toolkit hold no driver")
}

func TestCandidatesVirtualEnv(t *testing.T) {
	f := "/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13"
	e := fakeFS(map[string]string{"VIRTUAL_ENV": "/venv"}, f)
	assert.Contains(t, e.candidates(cublasLib), f)
}

func TestNVRTCBuiltins(t *testing.T) {
	dir := "/w/nvidia/cu13/lib"
	e := fakeFS(nil, dir+"/libnvrtc.so.13", dir+"/libnvrtc-builtins.so.13.0", dir+"/libnvrtc-builtins.so.12.8")
	assert.Equal(t, dir+"/libnvrtc-builtins.so.13.0", e.nvrtcBuiltins(dir+"/libnvrtc.so.13"))
	assert.Equal(t, dir+"/libnvrtc-builtins.so.12.8", e.nvrtcBuiltins(dir+"/libnvrtc.so.12"))
	assert.Empty(t, e.nvrtcBuiltins("libnvrtc.so.13"), "a bare soname leaves the builtins to the dynamic linker")
	assert.Empty(t, e.nvrtcBuiltins("/elsewhere/libnvrtc.so.13"))
}

func TestHostCandidatesStartWithSonames(t *testing.T) {
	c := hostEnv.candidates(nvrtcLib)
	require.GreaterOrEqual(t, len(c), 2)
	if hostEnv.getenv(EnvNVRTC) == "" {
		assert.True(t, strings.HasPrefix(c[0], "libnvrtc.so."))
	}
}
