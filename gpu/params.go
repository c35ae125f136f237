package gpu

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// Header words of every launch's params (see doc.go and common.wgsl).
const (
	hN      = 0  // number of work items
	hProg0  = 1  // word offset of program block 0
	hProg1  = 2  // word offset of program block 1
	hK      = 4  // first kind-specific scalar
	hHeader = 16 // words in the header
)

// View descriptor fields.
const (
	vdBinding = 0
	vdFlags   = 1
	vdOffset  = 2
	vdStrides = 3

	viewContiguous = 256
)

// maxPositions bounds the work items and elements of one launch so that
// 32-bit positions (and a padded grid of 256-invocation workgroups) never
// overflow in the shaders.
const maxPositions = 1<<31 - 1

// Launch is one encoded kernel dispatch, independent of the backend that
// records it.
type Launch struct {
	Kind  shaders.Kind
	Entry string // the entry point's name
	// Params are the words of binding 0.
	Params []uint32
	// Bindings are the data bindings 1..len(Bindings).
	Bindings []Binding
	// Workgroups is the number of workgroups to run; Grid splits it into a
	// 2-D grid.
	Workgroups int
	// Hooks are the fused programs, for backends that generate the hook
	// functions (see GenerateHooks); nil entries mean none.
	Hooks []Hook
	// Status, when not nil, says that the kernel reports errors in a status
	// slot (see StatusWords).
	Status *StatusUse
}

// StatusUse is how a launch uses the status buffer: the kernel sets word
// 2*Slot to a non-zero flag and word 2*Slot+1 to the offending value when
// an index is out of range.
type StatusUse struct {
	Slot int
	// Describe renders the error for the offending value.
	Describe func(bad int32) error
}

// StatusWords is the number of u32 words each status slot occupies.
const StatusWords = 2

// encoder builds a launch's params.
type encoder struct {
	kernel string
	w      []uint32
	plan   bindingPlan
	err    error
	// lastBinding is the binding number of the last view appended.
	lastBinding int
	// base is the position base of the blocks appended next (Hook.Base).
	base int
	wArr [256]uint32
}

// encoders are reused: one is large (its backing arrays keep typical
// launches from allocating) and encoding is on every launch's path.
var encoders = sync.Pool{New: func() any { return new(encoder) }}

func newEncoder(kernel string, t Target) *encoder {
	e := encoders.Get().(*encoder)
	e.kernel, e.err, e.lastBinding, e.base = kernel, nil, 0, 0
	e.w = e.wArr[:hHeader]
	clear(e.w)
	e.plan.init(t)
	return e
}

// fail records the first error.
func (e *encoder) fail(format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf("gpu: %s: "+format, append([]any{e.kernel}, args...)...)
	}
}

// count converts a size to a u32 word, refusing sizes the shaders cannot
// index with 32-bit positions.
func (e *encoder) count(n int) uint32 {
	if n < 0 || n > maxPositions {
		e.fail("size %d exceeds the %d positions one launch supports", n, maxPositions)
		return 0
	}
	return uint32(n)
}

// set writes a header or reserved word.
func (e *encoder) set(i int, v uint32) { e.w[i] = v }

// here returns the offset of the next word appended.
func (e *encoder) here() int { return len(e.w) }

// put appends words.
func (e *encoder) put(vs ...uint32) { e.w = append(e.w, vs...) }

// putInts appends sizes.
func (e *encoder) putInts(vs []int) {
	for _, v := range vs {
		e.put(e.count(v))
	}
}

// view appends the descriptor of v with the given strides (len(strides)
// words; the strides are the view's own or derived ones of the same
// element layout) and returns its word offset.
func (e *encoder) view(v device.View, strides []int, contiguous bool) int {
	d := e.here()
	flags := uint32(v.DType)
	if contiguous {
		flags |= viewContiguous
	}
	e.put(0, flags, 0)
	for _, s := range strides {
		if s < math.MinInt32 || s > math.MaxInt32 {
			e.fail("stride %d out of the 32-bit range", s)
		}
		e.put(uint32(int32(s)))
	}
	e.lastBinding = e.plan.add(d, v)
	return d
}

// finish completes the launch and recycles the encoder.
func (e *encoder) finish(l *Launch) (*Launch, error) {
	defer func() {
		clear(e.plan.bufs) // drop buffer references
		encoders.Put(e)
	}()
	if e.err != nil {
		return nil, e.err
	}
	bs, err := e.plan.finish(e.kernel, e.w)
	if err != nil {
		return nil, err
	}
	l.Params, l.Bindings = slices.Clone(e.w), bs
	if l.Workgroups > e.plan.target.MaxWorkgroups*e.plan.target.MaxWorkgroups {
		return nil, fmt.Errorf("gpu: %s: %d workgroups exceed the device's grid", e.kernel, l.Workgroups)
	}
	return l, nil
}

// Grid splits n workgroups into a 2-D grid (x, y) with x, y <= maxPerDim and
// x*y >= n; shaders number workgroups y*x + x (linear_workgroup) and skip
// the surplus.
func Grid(n, maxPerDim int) (x, y int) {
	if n <= 0 {
		return 0, 0
	}
	if n <= maxPerDim {
		return n, 1
	}
	y = (n + maxPerDim - 1) / maxPerDim
	x = (n + y - 1) / y
	return x, y
}

// ceilDiv returns a/b rounded up.
func ceilDiv(a, b int) int { return (a + b - 1) / b }

// WorkgroupSize is the invocations per workgroup of the one-dimensional
// kernels (WG in common.wgsl).
const WorkgroupSize = 256

// countInt is count for values that stay ints (workgroup counts).
func (e *encoder) countInt(n int) int { return int(e.count(n)) }
