//go:build cgo && linux

package cuda

/*
#include "native.h"
*/
import "C"

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// CUDA result codes the backend treats specially.
const (
	cudaErrorOutOfMemory = 2
	cudaErrorNoDevice    = 100
)

// stickyErrors are the results after which the context is unusable: the
// device counts as lost.
var stickyErrors = map[int]bool{
	214: true, // CUDA_ERROR_ECC_UNCORRECTABLE
	700: true, // CUDA_ERROR_ILLEGAL_ADDRESS
	702: true, // CUDA_ERROR_LAUNCH_TIMEOUT
	714: true, // CUDA_ERROR_HARDWARE_STACK_ERROR
	715: true, // CUDA_ERROR_ILLEGAL_INSTRUCTION
	716: true, // CUDA_ERROR_MISALIGNED_ADDRESS
	717: true, // CUDA_ERROR_INVALID_ADDRESS_SPACE
	718: true, // CUDA_ERROR_INVALID_PC
	719: true, // CUDA_ERROR_LAUNCH_FAILED
	999: true, // CUDA_ERROR_UNKNOWN
	46:  true, // CUDA_ERROR_DEVICE_UNAVAILABLE
}

// Error is a failed driver call: which entry point returned which result.
// It wraps device.ErrOutOfMemory for CUDA_ERROR_OUT_OF_MEMORY and
// device.ErrDeviceLost for the errors that leave the context unusable.
type Error struct {
	Call string // the entry point, e.g. "cuMemAllocAsync"
	Code int    // the CUresult
	Name string // the result's name from cuGetErrorName, e.g. "CUDA_ERROR_OUT_OF_MEMORY"
}

// Error renders the call, the result's name and its number.
func (e *Error) Error() string { return fmt.Sprintf("cuda: %s: %s (%d)", e.Call, e.Name, e.Code) }

// Unwrap returns the device error class the result belongs to, if any.
func (e *Error) Unwrap() error {
	switch {
	case e.Code == cudaErrorOutOfMemory:
		return device.ErrOutOfMemory
	case stickyErrors[e.Code]:
		return device.ErrDeviceLost
	}
	return nil
}

// check turns a wrapper's status into an *Error (nil on success).
func (a *driver) check(st C.sf_status) error {
	if st.code == 0 {
		return nil
	}
	code := int(st.code)
	name := fmt.Sprintf("CUDA error %d", code)
	if s := C.sf_cu_error_name(a.api, st.code); s != nil {
		name = C.GoString(s)
	}
	call := "cuda call"
	if st.call != nil {
		call = C.GoString(st.call)
	}
	return &Error{Call: call, Code: code, Name: name}
}

// cudaDTypes are the element types the generated CUDA C stores and
// computes: all of them, Int64 and Float64 as long long and double.
var cudaDTypes = device.AllDTypes

// cudaAccumulators are the types its reductions accumulate in: Float32
// only (the block and split reductions keep float partials), so integer
// sums, Int64 extremes and Float64 reductions are refused on this backend.
var cudaAccumulators = device.DTypes(device.Float32)

// checkDTypes refuses a kernel that uses an element type the backend lacks
// or a reduction accumulating in another type than Float32, with an error
// naming the type.
func checkDTypes(k any) error {
	return device.CheckDTypes("cuda", cudaDTypes, cudaAccumulators, k)
}
