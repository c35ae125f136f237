//go:build cgo && linux

package cuda

/*
#include <stdlib.h>
#include "native.h"
*/
import "C"

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"unsafe"
)

// module is a loaded CUDA module and the one kernel the backend uses of it.
type module struct {
	mod   C.CUmodule
	fn    C.CUfunction
	cubin bool   // loaded from a CUBIN rather than PTX
	entry string // fn's name, which kernel times report
}

// imageErrors are the cuModuleLoadData results after which the backend
// retries with PTX: the CUBIN does not suit this GPU or driver.
var imageErrors = map[int]bool{
	200: true, // CUDA_ERROR_INVALID_IMAGE
	209: true, // CUDA_ERROR_NO_BINARY_FOR_GPU
	218: true, // CUDA_ERROR_INVALID_PTX
	222: true, // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
}

// kernel returns entry point fn of src, compiling and loading the module at
// first use: a CUBIN for the device's sm_XY, or PTX for compute_XY (which
// the driver compiles) when NVRTC cannot produce a CUBIN or the driver
// refuses it.
//
// The image comes from the disk cache (diskcache.go) when it holds one for
// the source, NVRTC's version and the architecture; an image the driver
// refuses is dropped from the cache and compiled again. A compiled image
// is stored there as the one that loaded (PTX after a refused CUBIN).
func (d *Device) kernel(src, name, fn string) (*module, error) {
	return d.keyedKernel(sha256.Sum256([]byte(src)), src, name, fn)
}

// fixedKernel is kernel for a fixed source, whose key is already known.
func (d *Device) fixedKernel(f *fixedSource, name, fn string) (*module, error) {
	src, key := f.get()
	return d.keyedKernel(key, src, name, fn)
}

// keyedKernel is kernel for src of module key key.
func (d *Device) keyedKernel(key moduleKey, src, name, fn string) (*module, error) {
	if m, ok := d.modules[key]; ok {
		return m, nil
	}
	arch := fmt.Sprintf("sm_%d", d.cc)
	if !d.nv.cubin() {
		arch = fmt.Sprintf("compute_%d", d.cc)
	}
	var dkey cacheKey
	if d.disk != nil {
		dkey = d.disk.key(key, arch, d.nv.major, d.nv.minor)
		if img, cubin, ok := d.disk.get(dkey); ok {
			if m, err := d.load(img, fn); err == nil {
				m.cubin = cubin
				d.modules[key] = m
				return m, nil
			}
			d.disk.remove(dkey)
		}
	}
	img, cubin, err := d.nv.compile(src, name, arch)
	if err != nil {
		return nil, fmt.Errorf("cuda: compiling %s for %s with NVRTC %d.%d: %w", name, arch, d.nv.major, d.nv.minor, err)
	}
	m, err := d.load(img, fn)
	var ce *Error
	if err != nil && cubin && errors.As(err, &ce) && imageErrors[ce.Code] {
		if img, _, err = d.nv.compile(src, name, fmt.Sprintf("compute_%d", d.cc)); err != nil {
			return nil, fmt.Errorf("cuda: compiling %s to PTX for compute_%d: %w", name, d.cc, err)
		}
		cubin = false
		m, err = d.load(img, fn)
	}
	if err != nil {
		return nil, fmt.Errorf("cuda: loading %s: %w", name, d.note(err))
	}
	m.cubin = cubin
	d.modules[key] = m
	if d.disk != nil {
		d.cacheErr = d.disk.put(dkey, img, cubin)
	}
	return m, nil
}

// load loads an image and looks up fn in it.
func (d *Device) load(img []byte, fn string) (*module, error) {
	cimg := C.CBytes(img)
	defer C.free(cimg)
	cfn := C.CString(fn)
	defer C.free(unsafe.Pointer(cfn))
	m := &module{entry: fn}
	if err := d.drv.check(C.sf_cu_module_load(d.drv.api, d.ctx, cimg, cfn, &m.mod, &m.fn)); err != nil {
		return nil, err
	}
	return m, nil
}

// generated returns the module of a generated kernel's signature sig,
// rendering it (render) and compiling it as file name at first use; every
// generated kind caches its modules so, by signature in d.programs.
func (d *Device) generated(sig string, render func() string, name, entry string) (*module, error) {
	if m, ok := d.programs[sig]; ok {
		return m, nil
	}
	m, err := d.kernel(render(), name, entry)
	if err != nil {
		return nil, err
	}
	d.programs[sig] = m
	return m, nil
}
