//go:build cgo && linux

package cuda

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "native.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// driverHint says what to install when the driver is missing.
const driverHint = "install the NVIDIA driver (it provides libcuda.so.1; Debian: `apt-get install libcuda1` from non-free, or NVIDIA's packages), or set " + EnvDriver + " to its path"

// nvrtcHint says what to install when NVRTC is missing.
const nvrtcHint = "install NVRTC (the CUDA toolkit's cuda-nvrtc package, or `pip install nvidia-cuda-nvrtc` for CUDA 13 wheels), or set " + EnvNVRTC + " to libnvrtc.so's path"

// driver is a loaded libcuda with its entry points.
type driver struct {
	api     *C.sf_cu_api
	path    string
	version int // cuDriverGetVersion, e.g. 13000
	count   int // devices
}

// loadDriver opens the first of paths that loads, initializes the driver
// and counts its devices. Its error wraps device.ErrUnavailable.
func loadDriver(paths []string) (*driver, error) {
	var errs []string
	for _, p := range paths {
		a, err := openDriver(p)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		d := &driver{api: a, path: p}
		var ver, count C.int
		if err := d.check(C.sf_cu_init(a, &ver, &count)); err != nil {
			var ce *Error
			if errors.As(err, &ce) && ce.Code == cudaErrorNoDevice {
				return nil, fmt.Errorf("cuda: %s loaded but reports no device (%v): %w", p, err, device.ErrUnavailable)
			}
			return nil, fmt.Errorf("cuda: %s: initializing the driver: %w: %w", p, err, device.ErrUnavailable)
		}
		d.version, d.count = int(ver), int(count)
		if d.count == 0 {
			return nil, fmt.Errorf("cuda: %s loaded but reports no device: %w", p, device.ErrUnavailable)
		}
		return d, nil
	}
	return nil, fmt.Errorf("cuda: cannot load the CUDA driver (%s): %s: %w", strings.Join(errs, "; "), driverHint, device.ErrUnavailable)
}

// openDriver dlopens one file and resolves the entry points.
func openDriver(path string) (*C.sf_cu_api, error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var buf [512]C.char
	a := C.sf_cu_load(cp, &buf[0], C.int(len(buf)))
	if a == nil {
		return nil, errors.New(C.GoString(&buf[0]))
	}
	return a, nil
}

// viaProcAddress reports whether the entry points came from cuGetProcAddress.
func (a *driver) viaProcAddress() bool { return a.api.via_proc_address != 0 }

// versionString renders a CUDA version number (13000 is "13.0").
func versionString(v int) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }

// adapterInfo queries device ordinal for Info.
func (a *driver) adapterInfo(ordinal int) (device.Info, int, error) {
	var di C.sf_device_info
	if err := a.check(C.sf_cu_device_info(a.api, C.int(ordinal), &di)); err != nil {
		return device.Info{}, 0, err
	}
	cc := int(di.cc_major)*10 + int(di.cc_minor)
	kind := device.KindDiscreteGPU
	if di.integrated != 0 {
		kind = device.KindIntegratedGPU
	}
	mem := int64(di.total_mem)
	return device.Info{
		Backend:     "cuda",
		Index:       ordinal,
		Name:        C.GoString(&di.name[0]),
		Driver:      fmt.Sprintf("CUDA %s, sm_%d", versionString(a.version), cc),
		Kind:        kind,
		MemoryBytes: mem,
		Limits: device.Limits{
			MaxAllocBytes:       mem,
			MaxBindingBytes:     mem,
			MaxBuffersPerKernel: maxBuffersPerKernel,
			MaxWorkgroups:       [3]int{int(di.grid_x), int(di.grid_y), int(di.grid_z)},
			MaxWorkgroupSize:    int(di.attr_max_threads),
			SharedMemoryBytes:   int(di.shared_mem),
		},
		Features: device.Features{
			Float16:    cc >= 53,
			Subgroups:  di.warp > 0,
			Timestamps: a.api.cuEventCreate != nil, // see timing.go
		},
		DTypes:       cudaDTypes,
		Accumulators: cudaAccumulators,
	}, cc, nil
}

// maxBuffersPerKernel bounds the buffers one kernel binds: addresses,
// offsets and strides are kernel parameters, and 32 views (ten words an
// input) leave a quarter of the 4 KiB parameter space to constants.
const maxBuffersPerKernel = 32
