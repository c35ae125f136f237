package device

import (
	"errors"
	"fmt"
)

// Buffer is a backend's allocation. The front end treats it as opaque.
type Buffer interface {
	// Bytes returns the allocation's size in bytes.
	Bytes() int64
}

// Device is one opened adapter of a backend. Kernel methods may run
// asynchronously; work is executed in call order. An error a kernel hits while
// running (an index out of range, a lost device) is returned by that call or
// by a later Read or Sync. Kernel structs and their slices are not retained
// after a call returns; buffers they name must stay allocated until the work
// is done, except that Free of a buffer still used by pending work is allowed
// and takes effect when that work completes.
//
// The front end serializes calls on one Device; backends need not lock.
// Backends validate every kernel (see the Validate methods) before it reaches
// a driver, so no argument can crash the process.
type Device interface {
	// Info describes the adapter.
	Info() Info

	// Alloc returns a buffer of at least bytes bytes. It returns an error
	// wrapping ErrOutOfMemory when the device cannot satisfy the request.
	Alloc(bytes int64) (Buffer, error)
	// Free releases a buffer.
	Free(b Buffer)
	// Write copies src into b at byte offset off.
	Write(b Buffer, off int64, src []byte) error
	// Read waits for pending work and copies bytes of b from byte offset off
	// into dst.
	Read(b Buffer, off int64, dst []byte) error

	// Elementwise runs a fused elementwise program.
	Elementwise(k *ElementwiseKernel) error
	// Reduce runs a reduction with prologue and epilogue.
	Reduce(k *ReduceKernel) error
	// MatMul runs a batched matrix product with epilogue.
	MatMul(k *MatMulKernel) error
	// Conv runs a convolution (forward or backward) with epilogue.
	Conv(k *ConvKernel) error
	// Pool runs max or average pooling, forward or backward.
	Pool(k *PoolKernel) error
	// Gather runs torch.gather.
	Gather(k *GatherKernel) error
	// Scatter runs torch.scatter_add_ in place.
	Scatter(k *ScatterKernel) error
	// Copy copies one view into another.
	Copy(k *CopyKernel) error

	// Sync waits for all pending work and returns the first deferred error.
	Sync() error
	// Close releases the device. Buffers must not be used afterwards.
	Close() error
}

// Kind classifies an adapter for backend selection and reporting.
type Kind uint8

// The adapter kinds, from most to least preferred among GPUs.
const (
	KindCPU Kind = iota
	KindDiscreteGPU
	KindIntegratedGPU
	KindVirtualGPU
	KindSoftwareGPU // a GPU API implemented on the CPU (lavapipe, llvmpipe, SwiftShader)
)

var kindNames = [...]string{"cpu", "discrete gpu", "integrated gpu", "virtual gpu", "software gpu (emulated on the cpu)"}

// String names the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Rank orders kinds for choosing a default adapter, lower first: discrete,
// integrated and virtual GPUs, then the CPU, then software GPUs (a GPU API
// emulated on the CPU is slower than the CPU backend). Backends list their
// adapters in this order and tensor.Open picks the first.
func (k Kind) Rank() int {
	switch k {
	case KindDiscreteGPU:
		return 0
	case KindIntegratedGPU:
		return 1
	case KindVirtualGPU:
		return 2
	case KindCPU:
		return 3
	}
	return 4
}

// IsHardwareGPU reports whether the kind is a real GPU.
func (k Kind) IsHardwareGPU() bool { return k >= KindDiscreteGPU && k <= KindVirtualGPU }

// Limits are the device limits the fusion layer and the pool respect.
type Limits struct {
	MaxAllocBytes       int64  // largest single allocation
	MaxBindingBytes     int64  // largest range of a buffer one kernel may bind
	MaxBuffersPerKernel int    // storage buffers one kernel may bind, inputs and outputs together
	MaxWorkgroups       [3]int // dispatch size per dimension (zero for the CPU)
	MaxWorkgroupSize    int    // invocations per workgroup (zero for the CPU)
	SharedMemoryBytes   int    // workgroup (shared) memory per workgroup
}

// Features are optional capabilities.
type Features struct {
	Float16    bool   // native half-precision arithmetic
	Subgroups  bool   // subgroup (warp) operations
	Timestamps bool   // kernel timestamps for the profiler
	SIMD       string // the CPU instruction set in use, e.g. "avx512", "avx2", "go"
}

// Info describes an adapter.
type Info struct {
	Backend     string // the registering backend's name
	Index       int    // the adapter's index within its backend
	Name        string // the adapter's name
	Driver      string // driver name and version
	Kind        Kind
	MemoryBytes int64 // device memory, or system memory for the CPU
	Limits      Limits
	Features    Features
	// DTypes are the element types the backend stores and computes; empty
	// means BaseDTypes. The front end refuses any other type on the device
	// with an error naming the type and the backend.
	DTypes DTypeSet
	// Accumulators are the register types a Reduce kernel's prologue may
	// yield (see ReduceKernel); empty means Float32 alone.
	Accumulators DTypeSet
}

// SupportedDTypes returns DTypes, or BaseDTypes when it is empty.
func (i Info) SupportedDTypes() DTypeSet {
	if i.DTypes == 0 {
		return BaseDTypes
	}
	return i.DTypes
}

// ReduceAccumulators returns Accumulators, or Float32 alone when it is empty.
func (i Info) ReduceAccumulators() DTypeSet {
	if i.Accumulators == 0 {
		return DTypes(Float32)
	}
	return i.Accumulators
}

// String renders the info on one line.
func (i Info) String() string {
	return fmt.Sprintf("%s:%d %q (%s, driver %s, %d MiB)", i.Backend, i.Index, i.Name, i.Kind, i.Driver, i.MemoryBytes>>20)
}

// Errors a backend wraps so that callers can test for them with errors.Is.
var (
	ErrOutOfMemory = errors.New("device: out of memory")
	ErrDeviceLost  = errors.New("device: device lost")
	ErrUnavailable = errors.New("device: backend unavailable")
	ErrClosed      = errors.New("device: device closed")
)
