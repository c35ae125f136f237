//go:build cgo && linux

package cuda

import (
	"fmt"
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

// adapters returns l's devices, or the reason the libraries did not load.
func (l libs) adapters() ([]device.Info, error) {
	if l.err != nil {
		return nil, l.err
	}
	return l.infos, nil
}

// Name returns "cuda".
func (Backend) Name() string { return "cuda" }

// Adapters lists the CUDA devices, or returns an error wrapping
// device.ErrUnavailable that says what to install.
func (Backend) Adapters() ([]device.Info, error) {
	return getLibs().adapters()
}

// Open opens CUDA device index.
func (Backend) Open(index int) (device.Device, error) {
	l := getLibs()
	if l.err != nil {
		return nil, l.err
	}
	return open(l.drv, l.nv, index, defaultStagingBytes)
}
