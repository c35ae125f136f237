//go:build cgo && linux

package cuda

/*
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

// nvrtc is a loaded NVRTC library.
type nvrtc struct {
	api          *C.sf_nvrtc_api
	path         string
	major, minor int
}

// CompileError is a failed NVRTC call; for a failed compilation Log holds
// the compiler's messages.
type CompileError struct {
	Call string // the NVRTC entry point
	Code int    // the nvrtcResult
	Name string // nvrtcGetErrorString's name for it
	Log  string // the program log, when the compiler produced one
}

// Error renders the call, the result and the log.
func (e *CompileError) Error() string {
	s := fmt.Sprintf("cuda: %s: %s (%d)", e.Call, e.Name, e.Code)
	if e.Log != "" {
		s += ":\n" + strings.TrimRight(e.Log, "\n")
	}
	return s
}

// loadNVRTC opens the first of paths that loads, preloading the builtins
// library builtins(path) names. Its error wraps device.ErrUnavailable.
func loadNVRTC(paths []string, builtins func(string) string) (*nvrtc, error) {
	var errs []string
	for _, p := range paths {
		cp, cb := C.CString(p), C.CString(builtins(p))
		var buf [512]C.char
		a := C.sf_nvrtc_load(cp, cb, &buf[0], C.int(len(buf)))
		C.free(unsafe.Pointer(cp))
		C.free(unsafe.Pointer(cb))
		if a == nil {
			errs = append(errs, C.GoString(&buf[0]))
			continue
		}
		n := &nvrtc{api: a, path: p}
		var major, minor C.int
		if err := n.check(C.sf_nvrtc_version(a, &major, &minor), nil); err != nil {
			return nil, fmt.Errorf("cuda: %s: %w: %w", p, err, device.ErrUnavailable)
		}
		n.major, n.minor = int(major), int(minor)
		return n, nil
	}
	return nil, fmt.Errorf("cuda: cannot load NVRTC (%s): %s: %w", strings.Join(errs, "; "), nvrtcHint, device.ErrUnavailable)
}

// check turns a status into a *CompileError carrying log.
func (n *nvrtc) check(st C.sf_status, log *C.char) error {
	if st.code == 0 {
		return nil
	}
	e := &CompileError{Code: int(st.code), Call: "nvrtc call"}
	if st.call != nil {
		e.Call = C.GoString(st.call)
	}
	if s := C.sf_nvrtc_error_string(n.api, st.code); s != nil {
		e.Name = C.GoString(s)
	}
	if log != nil {
		e.Log = C.GoString(log)
	}
	return e
}

// compile compiles src for arch ("sm_90" gives a CUBIN where NVRTC can
// produce one, "compute_90" gives PTX) and returns the image and whether it
// is a CUBIN. A PTX image ends in NUL, as cuModuleLoadData wants.
func (n *nvrtc) compile(src, name, arch string) ([]byte, bool, error) {
	opts := []string{"--gpu-architecture=" + arch, "--std=c++17"}
	copts := make([]*C.char, len(opts))
	for i, o := range opts {
		copts[i] = C.CString(o)
		defer C.free(unsafe.Pointer(copts[i]))
	}
	csrc, cname := C.CString(src), C.CString(name)
	defer C.free(unsafe.Pointer(csrc))
	defer C.free(unsafe.Pointer(cname))
	cubin := strings.HasPrefix(arch, "sm_") && n.cubin()
	var out, log *C.char
	var outlen C.size_t
	st := C.sf_nvrtc_compile(n.api, csrc, cname, &copts[0], C.int(len(copts)), boolInt(cubin), &out, &outlen, &log)
	defer C.free(unsafe.Pointer(out))
	defer C.free(unsafe.Pointer(log))
	if err := n.check(st, log); err != nil {
		return nil, false, err
	}
	if out == nil {
		return nil, false, errors.New("cuda: NVRTC returned no image")
	}
	img := C.GoBytes(unsafe.Pointer(out), C.int(outlen))
	if !cubin && (len(img) == 0 || img[len(img)-1] != 0) {
		img = append(img, 0)
	}
	return img, cubin, nil
}

// cubin reports whether this NVRTC can emit a CUBIN (NVRTC 11.1 and later).
func (n *nvrtc) cubin() bool { return n.api.nvrtcGetCUBIN != nil }

// boolInt converts b to a C int.
func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
