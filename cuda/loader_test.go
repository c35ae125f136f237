//go:build cgo && linux

package cuda

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

func TestNoDriverIsUnavailableWithHint(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libcuda.so.1")
	l := loadLibs(searchEnv{getenv: func(k string) string {
		if k == EnvDriver {
			return missing
		}
		return ""
	}, glob: filepath.Glob})
	require.ErrorIs(t, l.err, device.ErrUnavailable)
	assert.Contains(t, l.err.Error(), missing)
	assert.Contains(t, l.err.Error(), "install the NVIDIA driver")
}

func TestLoaderResolvesThroughGetProcAddress(t *testing.T) {
	f := buildFake(t, nil, nil)
	drv, err := loadDriver([]string{f.driver})
	require.NoError(t, err)
	assert.True(t, drv.viaProcAddress())
	assert.Equal(t, 13000, drv.version)
	assert.Equal(t, 1, drv.count)
	assert.NotContains(t, f.calls(t), "cuGetProcAddress", "every lookup used version 12000 and no flags")
}

func TestLoaderFallsBackToVersionedSymbols(t *testing.T) {
	f := buildFake(t, []string{"-DFAKE_NO_PROC_ADDRESS"}, nil)
	drv, err := loadDriver([]string{f.driver})
	require.NoError(t, err)
	assert.False(t, drv.viaProcAddress())
	d := f.open(t, 64)
	b, err := d.Alloc(16)
	require.NoError(t, err)
	require.NoError(t, d.Write(b, 0, make([]byte, 16)))
}

func TestLoaderTriesCandidatesInOrder(t *testing.T) {
	f := buildFake(t, nil, nil)
	drv, err := loadDriver([]string{filepath.Join(f.dir, "nope.so"), f.driver})
	require.NoError(t, err)
	assert.Equal(t, f.driver, drv.path)
}

func TestInitFailureNamesTheCall(t *testing.T) {
	f := buildFake(t, nil, nil)
	t.Setenv("SF_FAKE_CUDA_FAIL", "cuInit=999")
	_, err := loadDriver([]string{f.driver})
	require.ErrorIs(t, err, device.ErrUnavailable)
	assert.Contains(t, err.Error(), "cuInit")
	t.Setenv("SF_FAKE_CUDA_FAIL", "")
	t.Setenv("SF_FAKE_CUDA_DEVICES", "0")
	_, err = loadDriver([]string{f.driver})
	require.ErrorIs(t, err, device.ErrUnavailable)
	assert.Contains(t, err.Error(), "no device")
}

func TestNVRTCMissingIsUnavailableWithHint(t *testing.T) {
	f := buildFake(t, nil, nil)
	l := loadLibs(f.env(map[string]string{EnvNVRTC: filepath.Join(f.dir, "libnvrtc.so.99")}))
	require.ErrorIs(t, l.err, device.ErrUnavailable)
	assert.Contains(t, l.err.Error(), "install NVRTC")
}

func TestNVRTCPreloadsBuiltins(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 64)
	_, err := d.kernel(copySource, "copy.cu", "sf_copy")
	require.NoError(t, err)
	assert.Equal(t, 1, f.count(t, "cuModuleLoadData SFFAKE sm_90 cubin builtins=1"), "%v", f.calls(t))
}

func TestAdaptersListsDevices(t *testing.T) {
	f := buildFake(t, nil, nil)
	l := loadLibs(f.env(nil))
	require.NoError(t, l.err)
	ad, err := l.adapters()
	require.NoError(t, err)
	require.Len(t, ad, 1)
	assert.Equal(t, "Fake CUDA GPU 0", ad[0].Name)
	assert.Equal(t, device.KindDiscreteGPU, ad[0].Kind)
}

func TestRegisteredBackend(t *testing.T) {
	b, ok := device.Lookup("cuda")
	require.True(t, ok)
	ad, err := b.Adapters()
	if err != nil {
		require.ErrorIs(t, err, device.ErrUnavailable)
		t.Log("cuda here: ", err)
		return
	}
	assert.NotEmpty(t, ad, "an available backend lists its devices")
}
