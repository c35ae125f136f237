//go:build cgo && linux

package cuda

import (
	"fmt"
	"strings"
	"sync"

	"github.com/shaderflow/shaderflow/tensor/device"
)

func init() { device.Register(Backend{}) }

// Backend is the CUDA backend as registered with package device.
type Backend struct{}

// libs is the process's driver and NVRTC, loaded at first use, and the
// devices the driver reports.
type libs struct {
	drv   *driver
	nv    *nvrtc
	infos []device.Info
	err   error
}

var (
	libsOnce sync.Once
	loaded   libs
)

// getLibs loads the libraries from hostEnv once.
func getLibs() libs {
	libsOnce.Do(func() { loaded = loadLibs(hostEnv) })
	return loaded
}

// loadLibs finds and loads the driver and NVRTC and describes every device.
func loadLibs(env searchEnv) libs {
	drv, err := loadDriver(env.candidates(driverLib))
	if err != nil {
		return libs{err: err}
	}
	nv, err := loadNVRTC(env.candidates(nvrtcLib), env.nvrtcBuiltins)
	if err != nil {
		return libs{err: err}
	}
	l := libs{drv: drv, nv: nv}
	for i := 0; i < drv.count; i++ {
		info, _, err := drv.adapterInfo(i)
		if err != nil {
			return libs{err: fmt.Errorf("cuda: describing device %d: %w: %w", i, err, device.ErrUnavailable)}
		}
		l.infos = append(l.infos, info)
	}
	return l
}

// adapters applies the experimental gate to l: the incomplete backend lists
// its devices only when experimental is set.
func (l libs) adapters(experimental bool) ([]device.Info, error) {
	if l.err != nil {
		return nil, l.err
	}
	if !experimental {
		names := make([]string, len(l.infos))
		for i, in := range l.infos {
			names[i] = fmt.Sprintf("%q", in.Name)
		}
		return nil, fmt.Errorf("cuda: found %s, but the backend is incomplete (only Copy, Elementwise and Reduce are implemented; see docs/cuda.md), so it lists no adapters unless %s=1: %w",
			strings.Join(names, ", "), EnvExperimental, device.ErrUnavailable)
	}
	return l.infos, nil
}

// Name returns "cuda".
func (Backend) Name() string { return "cuda" }

// Adapters lists the CUDA devices, or returns an error wrapping
// device.ErrUnavailable that says what to install, or that the backend is
// incomplete and SHADERFLOW_CUDA_EXPERIMENTAL=1 is not set.
func (Backend) Adapters() ([]device.Info, error) {
	return getLibs().adapters(experimentalOn(hostEnv))
}

// Open opens CUDA device index; it works without the experimental gate, for
// code (and tests) that want the incomplete backend explicitly.
func (Backend) Open(index int) (device.Device, error) {
	l := getLibs()
	if l.err != nil {
		return nil, l.err
	}
	return open(l.drv, l.nv, index, defaultStagingBytes)
}

// experimentalOn reports whether EnvExperimental is set to 1.
func experimentalOn(env searchEnv) bool { return strings.TrimSpace(env.getenv(EnvExperimental)) == "1" }
