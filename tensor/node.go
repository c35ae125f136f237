package tensor

import (
	"errors"
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/shaderflow/shaderflow/tensor/pool"
)

// nodeKind says how a node of the lazy graph is computed.
type nodeKind uint8

const (
	kindData        nodeKind = iota // holds data written from the host
	kindElementwise                 // one program op over its sources
	kindReduce
	kindMatMul
	kindConv
	kindPool
	kindGather
	kindScatter
	kindCat
	kindSoftmax       // softmax or log-softmax rows in one kernel
	kindSoftmaxGrad   // their gradient, rows in one kernel
	kindNormalize     // rows normalized to mean 0 and variance 1 in one kernel
	kindNormalizeGrad // their gradient, rows in one kernel
	kindAttention     // fused attention: its output and rows' log-sum-exp in one buffer
	kindAttentionGrad // its gradient: those of q, k and v in one buffer
	kindSort          // the positions that sort each line, by the device's sort kernel
	kindCumsum        // the running sums of each line, by the device's kernel
)

// view is a strided window onto a node's contiguous result.
type view struct {
	shape   []int
	strides []int
	offset  int
}

// src is a node read through a view whose shape is the consumer's iteration
// shape.
type src struct {
	n *node
	v view
}

// node is one value of the lazy graph: a contiguous array of shape and dtype,
// computed from its sources when first needed and then held in block.
type node struct {
	dev   *Device
	kind  nodeKind
	dtype DType
	shape []int
	srcs  []src
	sbuf  [2]src // storage for up to two sources, saving an allocation

	// elementwise
	op      device.Op
	argType DType   // the compute type arguments are converted to
	imm     float64 // OpConst's value, or the literal operand
	lit     int8    // 1 + the argument position of the literal operand imm; 0 for none
	seed    uint64

	attrs any // the kind's parameters (reduceAttrs, convAttrs, ...)

	block *pool.Block
	extra *pool.Block // a second result (max-pool winner indices)
	err   error
	gen   uint64 // the generation of launches that computed it (settle.go); 0 for uploaded data

	handles   int  // live Tensor handles onto this node
	consumers int  // unrealized nodes reading this one, plus autograd pins
	forceMat  bool // never inline into a consumer
	freed     bool // its memory and sources are gone: nothing may read it again
	depth     int  // an upper bound on the longest path of unrealized nodes ending here
}

func (n *node) numel() int { return device.NumElements(n.shape) }

func (n *node) realized() bool { return n.block != nil }

// newNode records a node, taking a consumer reference on each source. The
// caller holds dev.mu.
func (d *Device) newNode(kind nodeKind, dt DType, shape []int, srcs []src) *node {
	n := &node{dev: d, kind: kind, dtype: dt, shape: shape}
	n.err = d.dtypeError(dt)
	if len(srcs) <= len(n.sbuf) {
		n.srcs = n.sbuf[:copy(n.sbuf[:], srcs)]
	} else {
		n.srcs = slices.Clone(srcs)
	}
	for _, s := range srcs {
		s.n.consumers++
		if s.n.block == nil {
			n.depth = max(n.depth, s.n.depth+1)
		}
		if s.n.freed && n.err == nil {
			// Only a tensor released by another goroutine's Scope while
			// this op was recorded gets here; computing would read nothing.
			n.err = errors.New("tensor: an operand was released (by a Scope on another goroutine?) while the operation was recorded")
		}
	}
	return n
}

// dropSources releases the node's references to its sources once it is
// realized (or abandoned), freeing sources nothing else reads. It works
// through an explicit stack, so a long chain of unrealized nodes is freed
// without deep recursion. Callers hold dev.mu.
func (n *node) dropSources() {
	var buf [16]*node
	stack := n.releaseSources(buf[:0])
	for len(stack) > 0 {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if m.handles > 0 || m.consumers > 0 {
			continue
		}
		m.freeBlocks()
		stack = m.releaseSources(stack)
	}
}

// releaseSources drops n's consumer reference on each source and appends
// the sources to stack.
func (n *node) releaseSources(stack []*node) []*node {
	srcs := n.srcs
	n.srcs = nil
	for _, s := range srcs {
		s.n.consumers--
		stack = append(stack, s.n)
	}
	// srcs may alias sbuf: without clearing it, a realized node (a
	// parameter) would keep every earlier step's graph reachable.
	clear(n.sbuf[:])
	return stack
}

// maybeFree releases the node's memory and graph when nothing can read it
// any more. Callers hold dev.mu.
func (n *node) maybeFree() {
	if n.handles > 0 || n.consumers > 0 {
		return
	}
	n.freeBlocks()
	n.dropSources()
}

// freeBlocks returns the node's memory to the pool and marks it freed.
func (n *node) freeBlocks() {
	for _, b := range []**pool.Block{&n.block, &n.extra} {
		if *b != nil {
			n.dev.pool.Free(*b)
			*b = nil
		}
	}
	n.freed = true
}

// contiguousView returns the identity view of shape.
func contiguousView(shape []int) view {
	if len(shape) == 1 {
		return view{shape: shape, strides: unitStride}
	}
	return view{shape: shape, strides: device.ContiguousStrides(shape)}
}

// unitStride is the stride of every 1-D contiguous view (never modified).
var unitStride = []int{1}

// isIdentity reports whether v reads a node of shape in order.
func (v view) isIdentity(shape []int) bool {
	if v.offset != 0 || len(v.shape) != len(shape) {
		return false
	}
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		if v.shape[i] != shape[i] {
			return false
		}
		if shape[i] != 1 && v.strides[i] != acc {
			return false
		}
		acc *= shape[i]
	}
	return true
}

// deviceView turns a view of a realized node into a contract view.
func (n *node) deviceView(v view) device.View {
	return device.View{Buf: n.block.Buf, DType: n.dtype, Offset: v.offset, Shape: v.shape, Strides: v.strides}
}
