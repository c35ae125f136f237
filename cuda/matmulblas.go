//go:build cgo && linux

package cuda

/*
#include <stdlib.h>
#include "matmulblas.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// The process's cuBLAS, loaded at the first product it could compute; nil
// (with the reason in blasErr) when no candidate loads, and then every
// product runs the generated kernel.
var (
	blasOnce sync.Once
	blasAPI  *C.sf_blas_api
	blasErr  error
)

// getBLAS loads cuBLAS from hostEnv's candidates (SHADERFLOW_CUDA_CUBLAS,
// the sonames, the toolkit's and the wheels' directories) once.
func getBLAS() (*C.sf_blas_api, error) {
	blasOnce.Do(func() { blasAPI, blasErr = loadBLAS(hostEnv.candidates(cublasLib)) })
	return blasAPI, blasErr
}

// loadBLAS opens the first of paths that loads and has the entry points.
func loadBLAS(paths []string) (*C.sf_blas_api, error) {
	var errs []string
	for _, p := range paths {
		cp := C.CString(p)
		var buf [512]C.char
		b := C.sf_blas_load(cp, &buf[0], C.int(len(buf)))
		C.free(unsafe.Pointer(cp))
		if b != nil {
			return b, nil
		}
		errs = append(errs, C.GoString(&buf[0]))
	}
	return nil, fmt.Errorf("cuda: cannot load cuBLAS (%s)", strings.Join(errs, "; "))
}

// blasHandle is a device's cuBLAS handle (on its context and stream), or
// why it has none.
type blasHandle struct {
	api *C.sf_blas_api
	h   C.sf_cublas_handle
	err error
}

// deviceBLAS maps each open device to its handle, made at its first
// product that cuBLAS can compute.
var (
	blasMu     sync.Mutex
	deviceBLAS = map[*Device]*blasHandle{}
)

// EnvTF32 set to 1 lets the cuBLAS products of every device the backend
// opens use TF32 tensor cores (SetTF32).
const EnvTF32 = "SHADERFLOW_CUDA_TF32"

// SetTF32 lets the device's float32 products through cuBLAS use TF32
// tensor cores (on), which round each operand to a 10-bit mantissa (about
// three decimal digits) before multiplying. Off (the default) keeps them
// float32-accurate. Products of the generated kernel are float32 either
// way.
func (d *Device) SetTF32(on bool) error {
	if err := d.usable(); err != nil {
		return err
	}
	d.tf32 = on
	blasMu.Lock()
	h, ok := deviceBLAS[d]
	blasMu.Unlock()
	if !ok || h.err != nil {
		return nil // applied when the handle is made
	}
	return d.note(d.blasCheck(C.sf_blas_math(h.api, h.h, boolInt(on))))
}

// newBLASHandle makes d's handle on api with the device's math mode.
func (d *Device) newBLASHandle(api *C.sf_blas_api) *blasHandle {
	h := &blasHandle{api: api}
	h.err = d.blasCheck(C.sf_blas_create(d.drv.api, d.ctx, api, &h.h))
	if h.err == nil && d.tf32 {
		if h.err = d.blasCheck(C.sf_blas_math(api, h.h, 1)); h.err != nil {
			_ = d.blasCheck(C.sf_blas_destroy(d.drv.api, d.ctx, api, h.h))
		}
	}
	return h
}

// blas returns d's cuBLAS handle, making it at first use, or nil when
// cuBLAS is missing or refused to start (the reason stays in the handle).
func (d *Device) blas() *blasHandle {
	blasMu.Lock()
	defer blasMu.Unlock()
	h, ok := deviceBLAS[d]
	if !ok {
		h = &blasHandle{}
		if C.sf_blas_same_driver(d.drv.api) == 0 {
			h.err = fmt.Errorf("cuda: cuBLAS would use the system's libcuda.so.1, not the driver the backend loaded (%s)", d.drv.path)
		} else if api, err := getBLAS(); err != nil {
			h.err = err
		} else {
			h = d.newBLASHandle(api)
		}
		deviceBLAS[d] = h
	}
	if h.err != nil {
		return nil
	}
	return h
}

// useBLAS gives d a handle of the first cuBLAS of paths that loads, in
// place of the process's (getBLAS): for tests of the cuBLAS path through
// the test double's fake cuBLAS.
func (d *Device) useBLAS(paths []string) error {
	api, err := loadBLAS(paths)
	if err != nil {
		return err
	}
	if C.sf_blas_same_driver(d.drv.api) == 0 {
		return fmt.Errorf("cuda: %s is not the driver cuBLAS would use", d.drv.path)
	}
	h := d.newBLASHandle(api)
	if h.err != nil {
		return h.err
	}
	blasMu.Lock()
	deviceBLAS[d] = h
	blasMu.Unlock()
	return nil
}

// closeBLAS destroys d's handle, if it has one; Close calls it.
func (d *Device) closeBLAS() error {
	blasMu.Lock()
	h, ok := deviceBLAS[d]
	delete(deviceBLAS, d)
	blasMu.Unlock()
	if !ok || h.err != nil || d.lost != nil {
		return nil
	}
	return d.blasCheck(C.sf_blas_destroy(d.drv.api, d.ctx, h.api, h.h))
}

// blasCheck turns a cuBLAS wrapper's status into an error: the driver's
// for cuCtxSetCurrent, else the cuBLAS entry point and status.
func (d *Device) blasCheck(st C.sf_status) error {
	if st.code == 0 {
		return nil
	}
	call := C.GoString(st.call)
	if !strings.HasPrefix(call, "cublas") {
		return d.note(d.drv.check(st))
	}
	return fmt.Errorf("cuda: %s: cuBLAS status %d", call, int(st.code))
}

// matMulBLAS computes k's product with one cublasSgemmStridedBatched call
// g (ptrs: A, B, the epilogue inputs, the outputs), straight into the
// output when the epilogue stores the product unchanged, else into
// scratch that a generated elementwise kernel running the epilogue then
// reads (input 0: the product, as in the fused kernel; the positions are
// the same).
func (d *Device) matMulBLAS(k *device.MatMulKernel, g blasGemm, h *blasHandle, ptrs []uint64) error {
	shape := k.OutShape()
	n := device.NumElements(shape)
	out := ptrs[len(ptrs)-1] + 4*uint64(k.Outputs[0].Offset)
	direct := isIdentityEpilogue(k)
	var scratch device.Buffer
	if !direct {
		var err error
		if scratch, err = d.Alloc(4 * int64(n)); err != nil {
			return err
		}
		defer d.Free(scratch)
		out = uint64(scratch.(*buffer).ptr)
	}
	cg := C.sf_blas_gemm{transa: blasOp(g.transA), transb: blasOp(g.transB),
		m: C.longlong(g.m), n: C.longlong(g.n), k: C.longlong(g.k),
		lda: C.longlong(g.lda), ldb: C.longlong(g.ldb), ldc: C.longlong(g.ldc), batch: C.longlong(g.batch),
		stride_a: C.longlong(g.strideA), stride_b: C.longlong(g.strideB), stride_c: C.longlong(g.strideC)}
	a := C.CUdeviceptr(ptrs[1] + 4*uint64(g.offA)) // cuBLAS's first operand is our B
	b := C.CUdeviceptr(ptrs[0] + 4*uint64(g.offB))
	if err := d.blasCheck(C.sf_blas_sgemm(d.drv.api, d.ctx, h.api, h.h, &cg, a, b, C.CUdeviceptr(out))); err != nil {
		return fmt.Errorf("cuda: matmul: %w", err)
	}
	if direct {
		return nil
	}
	ek := &device.ElementwiseKernel{Shape: shape, Program: k.Epilogue, Outputs: k.Outputs,
		Inputs: append([]device.View{device.Contiguous(scratch, device.Float32, 0, shape)}, k.EpilogueInputs...)}
	if err := d.Elementwise(ek); err != nil {
		return fmt.Errorf("cuda: matmul: the epilogue after cuBLAS: %w", err)
	}
	return nil
}

// blasKernelName names a cuBLAS SGEMM call among the kernel times.
const blasKernelName = "cublas_sgemm"

// blasTimingFn is the function a cuBLAS call's kernel times carry.
func blasTimingFn() C.CUfunction { return C.sf_blas_timing_fn() }

// blasOp is cuBLAS's operation for a transposed operand or not.
func blasOp(trans bool) C.longlong {
	if trans {
		return C.SF_CUBLAS_OP_T
	}
	return C.SF_CUBLAS_OP_N
}

// blasState says why d has no cuBLAS handle (nil when it has one), for
// tests and logs.
func (d *Device) blasState() error {
	blasMu.Lock()
	defer blasMu.Unlock()
	if h, ok := deviceBLAS[d]; ok && h.err != nil {
		return h.err
	} else if !ok {
		return errors.New("cuda: cuBLAS not tried yet")
	}
	return nil
}
