package tensor

import (
	"errors"
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/shaderflow/shaderflow/tensor/pool"
)

// errFreed is what realizing a node whose memory and sources are gone
// returns: its last handle was released (by Release, or by a Scope that ended
// on another goroutine) while an operation still used it.
var errFreed = errors.New("tensor: a tensor was released while in use (by Release, or by a Scope ended on another goroutine)")

// realize computes n (and whatever it needs) unless it already holds data.
// The caller holds d.mu.
func (d *Device) realize(n *node) error {
	if n.err != nil { // sticky, also on a value whose kernel failed after it ran
		return n.err
	}
	if n.freed {
		return errFreed
	}
	if n.block != nil {
		if err := d.generationError(n); err != nil {
			n.err = err
			return err
		}
		return nil
	}
	if d.closed {
		return device.ErrClosed
	}
	if n.depth > realizeDepth {
		if err := d.realizeLayers(n); err != nil {
			return err
		}
	}
	var err error
	switch n.kind {
	case kindElementwise:
		err = d.runElementwise(n)
	case kindReduce:
		err = d.runReduce(n, nil)
	case kindMatMul:
		err = d.runMatMul(n, nil)
	case kindConv:
		err = d.runConv(n, nil)
	case kindPool:
		err = d.runPool(n)
	case kindGather:
		err = d.runGather(n)
	case kindScatter:
		err = d.runScatter(n)
	case kindCat:
		err = d.runCat(n)
	case kindSoftmax, kindSoftmaxGrad, kindNormalize, kindNormalizeGrad:
		err = d.runRows(n)
	case kindAttention, kindAttentionGrad:
		err = d.runAttention(n)
	case kindSort:
		err = d.runSort(n)
	case kindCumsum:
		err = d.runCumsum(n)
	default:
		err = fmt.Errorf("tensor: node of kind %s has no data", n.kind)
	}
	if err != nil {
		n.err = err
		return err
	}
	d.computed(n)
	n.dropSources()
	return nil
}

// realizeDepth bounds how many unrealized nodes deep one realization goes:
// building a kernel recurses through the nodes it inlines and realizes the
// others it reads first, so an unbounded chain would exhaust the stack.
const realizeDepth = 256

// realizeLayers realizes, sources first, every unrealized ancestor of n
// that lies realizeDepth nodes above the realized data (and that depth
// again above those), walking the graph with an explicit stack so that
// graphs of any depth are realized without deep recursion. It leaves n's
// depth at most realizeDepth. The caller holds d.mu.
func (d *Device) realizeLayers(n *node) error {
	type frame struct {
		n    *node
		next int // the next source to visit
	}
	seen := map[*node]bool{n: true}
	stack := []frame{{n: n}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < len(f.n.srcs) {
			s := f.n.srcs[f.next].n
			f.next++
			if s.block == nil && s.err == nil && !seen[s] {
				seen[s] = true
				stack = append(stack, frame{n: s})
			}
			continue
		}
		m := f.n
		stack = stack[:len(stack)-1]
		if m.err != nil {
			return m.err
		}
		m.depth = 0
		for _, s := range m.srcs {
			if s.n.block == nil {
				m.depth = max(m.depth, s.n.depth+1)
			}
		}
		if m.depth >= realizeDepth && m != n {
			if err := d.realize(m); err != nil {
				return err
			}
			m.depth = 0
		}
	}
	return nil
}

// alloc returns a pool block for numel elements of dt.
func (d *Device) alloc(dt DType, numel int) (*pool.Block, error) {
	return d.pool.Alloc(int64(numel) * int64(dt.Size()))
}

// epilogue is an elementwise program fused after a producer: input 0 is the
// producer's value, the others are views of the producer's result shape.
type epilogue struct {
	prog   device.Program
	inputs []device.View
	ops    []string
	target *node // the node whose value the epilogue computes
}

// identityEpilogue returns the epilogue that stores the producer's value.
func identityEpilogue(n *node) *epilogue {
	return &epilogue{prog: device.Identity(n.dtype), target: n}
}

// runElementwise computes an elementwise node, fused with the elementwise
// producers it can inline and, when possible, as the epilogue of a
// reduction, matmul or convolution.
func (d *Device) runElementwise(n *node) error {
	for attempt := 0; ; attempt++ {
		pb := d.newProgBuilder(n.shape, attempt == 0)
		done, err := d.tryElementwise(n, pb)
		d.putProgBuilder(pb)
		if done {
			return err
		}
	}
}

// tryElementwise builds and launches n's kernel with pb; it reports false
// when the program must be rebuilt (a producer was marked for
// materialization to respect the device's binding limit).
func (d *Device) tryElementwise(n *node, pb *progBuilder) (bool, error) {
	r, _ := pb.inline(n, contiguousView(n.shape))
	pb.b.Output(pb.b.Cast(pb.unroundLast(r, n.dtype), n.dtype))
	if pb.err != nil {
		return true, pb.err
	}
	if pb.absorbed != nil && pb.absorbed.realized() {
		// A nested realization (a reduction reading the same producer, or
		// a node the program inlines, which finds the producer pinned)
		// computed the absorbed producer while the program was built:
		// rebuild, reading its result.
		return false, nil
	}
	extra := 1
	if pb.absorbed != nil {
		extra = 3 // the producer's own operands
	}
	if pb.bindings(extra) > d.maxBufs {
		if w := pb.worstContributor(n); w != nil {
			w.forceMat = true
			return false, nil
		}
		if pb.absorbed != nil {
			return false, nil // retry without absorbing
		}
		return true, fmt.Errorf("tensor: kernel needs %d buffers, device allows %d", pb.bindings(extra), d.maxBufs)
	}
	if pb.absorbed != nil && pb.absorbed.kind != kindReduce && !baseTypes(pb, n.dtype) {
		return false, nil // products' epilogues stay in device.BaseDTypes: retry without absorbing
	}
	if pb.absorbed != nil && !pb.reshapeInputs(pb.absorbed.shape) {
		return false, nil // an input cannot be viewed in the product's shape: retry without absorbing
	}
	if pb.absorbed != nil {
		ep := &epilogue{prog: pb.finish(), inputs: pb.inputs, ops: pb.ops, target: n}
		switch a := pb.absorbed; a.kind {
		case kindReduce:
			return true, d.runReduce(a, ep)
		case kindMatMul:
			return true, d.runMatMul(a, ep)
		default:
			return true, d.runConv(a, ep)
		}
	}
	blk, err := d.alloc(n.dtype, n.numel())
	if err != nil {
		return true, err
	}
	d.out1[0] = device.View{Buf: blk.Buf, DType: n.dtype, Shape: n.shape, Strides: contiguousView(n.shape).strides}
	d.ewk = device.ElementwiseKernel{Shape: n.shape, Inputs: pb.inputs, Program: pb.b.P, Outputs: d.out1[:]}
	err = d.launch("elementwise", "elementwise", pb.ops, len(pb.inputs), 1, func() error { return d.raw.Elementwise(&d.ewk) })
	d.ewk, d.out1[0] = device.ElementwiseKernel{}, device.View{}
	if err != nil {
		d.pool.Free(blk)
		return true, err
	}
	n.block = blk
	return true, nil
}

// store allocates the epilogue target's block and returns the output view of
// shape, which has the target's element count.
func (d *Device) store(ep *epilogue, shape []int) (*pool.Block, device.View, error) {
	blk, err := d.alloc(ep.target.dtype, ep.target.numel())
	if err != nil {
		return nil, device.View{}, err
	}
	return blk, device.Contiguous(blk.Buf, ep.target.dtype, 0, shape), nil
}

// product is a matmul or convolution ready to launch: its operands, its
// epilogue and the block the epilogue stores into.
type product struct {
	a, b device.View
	ep   *epilogue
	blk  *pool.Block
	out  device.View // the output view of blk
}

// prepareProduct realizes the two operands of a matmul or convolution node
// n and allocates the block its epilogue ep (the identity when nil) stores
// into.
func (d *Device) prepareProduct(n *node, ep *epilogue) (product, error) {
	var p product
	var err error
	if p.a, err = d.realizeSrc(n.srcs[0]); err != nil {
		return p, err
	}
	if p.b, err = d.realizeSrc(n.srcs[1]); err != nil {
		return p, err
	}
	if ep == nil {
		ep = identityEpilogue(n)
	}
	p.ep = ep
	p.blk, p.out, err = d.store(ep, n.shape)
	return p, err
}

// finishEpilogue records the epilogue target's data, or frees it on error.
func (d *Device) finishEpilogue(ep *epilogue, blk *pool.Block, err error) error {
	if err != nil {
		d.pool.Free(blk)
		return err
	}
	ep.target.block = blk
	return nil
}

// realizeSrc realizes a source node that a kernel reads directly and returns
// its contract view.
func (d *Device) realizeSrc(s src) (device.View, error) {
	if err := d.realize(s.n); err != nil {
		return device.View{}, err
	}
	return s.n.deviceView(s.v), nil
}

// kernelOps names the operations of a producer kernel: the producer alone, or
// the epilogue's list, which already names it.
func kernelOps(producer string, epilogueOps []string) []string {
	if len(epilogueOps) == 0 {
		return []string{producer}
	}
	return epilogueOps
}

// baseTypes reports whether the program pb built, its inputs and its output
// type out all stay within device.BaseDTypes.
func baseTypes(pb *progBuilder, out DType) bool {
	if !device.BaseDTypes.Has(out) {
		return false
	}
	for _, v := range pb.inputs {
		if !device.BaseDTypes.Has(v.DType) {
			return false
		}
	}
	for _, in := range pb.b.P.Code {
		if !device.BaseDTypes.Has(in.Type) {
			return false
		}
	}
	return true
}
