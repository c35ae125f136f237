package tensor

import (
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Tensor is an n-dimensional view (shape, strides, offset) onto a node of a
// device's lazy graph. Tensors are immutable values except for autograd state
// and Assign; operations return new tensors. The zero Tensor is not usable.
type Tensor struct {
	n       *node
	shape   []int
	strides []int
	offset  int
	h       *handle
	ag      *gradInfo // autograd state; nil when no gradient is tracked
}

// handle is a tensor's claim on its node, shared with its cleanup so that an
// explicit Release and the garbage collector never both release it.
type handle struct {
	n *node
	// released is set under the device lock and read without it by check,
	// which may run on another goroutine than a Scope that releases it.
	released  atomic.Bool
	byScope   bool // released by the end of the Scope it was created in
	collected bool // a cleanup releases it if the garbage collector finds the tensor first
}

// wrap makes a tensor handle onto n through v. The caller holds n.dev.mu.
func wrap(n *node, v view) *Tensor {
	t := &Tensor{}
	bind(t, n, v)
	return t
}

// bind points t at n through v with a new handle, released by the innermost
// open scope or else by a cleanup. The caller holds n.dev.mu.
func bind(t *Tensor, n *node, v view) {
	d := n.dev
	h := &handle{n: n}
	n.handles++
	t.n, t.shape, t.strides, t.offset, t.h = n, v.shape, v.strides, v.offset, h
	if len(d.scopes) > 0 {
		// The scope releases it deterministically; no cleanup is needed
		// unless the tensor is kept beyond every scope.
		f := d.scopes[len(d.scopes)-1]
		f.handles = append(f.handles, h)
	} else {
		t.collectable()
	}
}

// collectable attaches the safety net: a cleanup that releases the handle
// when the garbage collector finds the tensor unreachable before Release,
// and the device's reclaimer, which releases it sooner when the pool grows.
// The caller holds the device lock.
func (t *Tensor) collectable() {
	if !t.h.collected {
		t.h.collected = true
		runtime.AddCleanup(t, func(h *handle) {
			if !h.released.Load() { // the reclaimer usually came first
				h.n.dev.releaseHandle(h)
			}
		}, t.h)
		t.n.dev.track(t)
	}
}

// whole returns a handle that reads all of n in order.
func whole(n *node) *Tensor { return wrap(n, contiguousView(n.shape)) }

// releaseHandle drops a handle's claim; it takes the device lock.
func (d *Device) releaseHandle(h *handle) {
	d.mu.Lock()
	d.releaseLocked(h)
	d.mu.Unlock()
}

func (d *Device) releaseLocked(h *handle) {
	if h.released.Load() {
		return
	}
	h.released.Store(true)
	h.n.handles--
	h.n.maybeFree()
}

// Release gives up this tensor's claim on its memory now rather than when the
// garbage collector finds it. Using the tensor afterwards panics.
func (t *Tensor) Release() {
	if t == nil || t.h == nil {
		return
	}
	t.n.dev.releaseHandle(t.h)
}

// check panics naming op unless t is a live tensor.
func (t *Tensor) check(op string) {
	t.exists(op)
	if t.h.released.Load() {
		if t.h.byScope {
			usage(op, "tensor %v used after the Scope it was created in ended (a Scope releases every tensor created on its device while it is open, by any goroutine); to use a value after its scope, call Keep on it before the scope ends (x.Keep(), or x.Detach().Keep() without its graph), or read it inside the scope (Item, Float32s)", t.shape)
		}
		usage(op, "tensor %v used after Release; release a tensor after its last use, or read it first (Item, Float32s) to keep its values on the host", t.shape)
	}
}

// exists panics naming op if t is nil or the zero Tensor: the accessors,
// which still describe a released tensor, call it.
func (t *Tensor) exists(op string) {
	if t == nil {
		usage(op, "nil tensor")
	}
	if t.h == nil {
		usage(op, "uninitialized tensor (use a constructor such as tensor.Zeros)")
	}
}

// view returns the tensor's view of its node.
func (t *Tensor) view() view { return view{shape: t.shape, strides: t.strides, offset: t.offset} }

// Device returns the tensor's device.
func (t *Tensor) Device() *Device {
	t.exists("Device")
	return t.n.dev
}

// DType returns the element type.
func (t *Tensor) DType() DType {
	t.exists("DType")
	return t.n.dtype
}

// Shape returns a copy of the shape.
func (t *Tensor) Shape() []int {
	t.exists("Shape")
	return append([]int(nil), t.shape...)
}

// Strides returns a copy of the strides, in elements.
func (t *Tensor) Strides() []int {
	t.exists("Strides")
	return append([]int(nil), t.strides...)
}

// Dim returns the number of dimensions.
func (t *Tensor) Dim() int {
	t.exists("Dim")
	return len(t.shape)
}

// Size returns the size of dimension axis (negative counts from the end).
func (t *Tensor) Size(axis int) int {
	t.exists("Size")
	return t.shape[normAxis("Size", axis, len(t.shape))]
}

// NumElements returns the number of elements.
func (t *Tensor) NumElements() int {
	t.exists("NumElements")
	return device.NumElements(t.shape)
}

// IsContiguous reports whether the tensor reads its storage in row-major order
// without gaps.
func (t *Tensor) IsContiguous() bool {
	t.exists("IsContiguous")
	return device.View{Shape: t.shape, Strides: t.strides}.IsContiguous()
}

// String describes the tensor (shape, dtype, device) without realizing it;
// fmt's %v and %s print its values instead (see Format).
func (t *Tensor) String() string {
	if t == nil || t.h == nil {
		return "Tensor(nil)"
	}
	return fmt.Sprintf("Tensor(%v, %s, %s)", t.shape, t.n.dtype, t.n.dev.Name())
}

// normAxis resolves a possibly negative axis or panics naming op.
func normAxis(op string, axis, rank int) int {
	if axis < -rank || axis >= rank || (rank == 0 && axis != 0 && axis != -1) {
		usage(op, "axis %d out of range for a %d-dimensional tensor", axis, rank)
	}
	if axis < 0 {
		axis += rank
	}
	return axis
}
