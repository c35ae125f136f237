package gpu

import (
	"fmt"
	"slices"

	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// rowKernel is a row kernel of shaders/softmax.wgsl (softmax or
// normalization, forward or backward): ins are views of one shape whose
// last dimension is the rows' (In; or Y or X, then G), out the contiguous
// result.
type rowKernel struct {
	name   string // for errors
	entry  string // the entry point of shaders/softmax.wgsl
	ins    []device.View
	out    device.View
	arg    uint32 // params word 5: 1 for log-softmax; a normalization's eps as float32 bits
	passes int    // the loops over its elements of the row each invocation runs
}

// EncodeSoftmaxSlabs validates and encodes a row softmax (or log-softmax)
// as one launch (a row per workgroup, or several short rows per
// workgroup: softmaxThreads), or, when its views span more than one
// binding on t, one launch per slab of the rows' dimensions (slabs.go; a
// single row that spans more is refused). The launches may run in any
// order. A row whose two passes take more loop iterations than the device
// runs is refused.
func EncodeSoftmaxSlabs(k *device.SoftmaxKernel, t Target) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	return encodeRowSlabs(rowKernel{name: "softmax", entry: "softmax_rows", ins: []device.View{k.In}, out: k.Out, arg: flag(k.Log), passes: 2}, t)
}

// EncodeSoftmaxBackwardSlabs validates and encodes the gradient of a row
// softmax (or log-softmax) as EncodeSoftmaxSlabs does the softmax.
func EncodeSoftmaxBackwardSlabs(k *device.SoftmaxBackwardKernel, t Target) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	return encodeRowSlabs(rowKernel{name: "softmax backward", entry: "softmax_backward_rows", ins: []device.View{k.Y, k.G}, out: k.Out, arg: flag(k.Log), passes: 2}, t)
}

// flag is 1 for true, 0 for false.
func flag(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// encodeRowSlabs encodes a validated row kernel, in slabs of its rows when
// its views span more than one binding on t.
func encodeRowSlabs(k rowKernel, t Target) ([]*Launch, error) {
	r := len(k.out.Shape) - 1
	slabs := splitSpace(t, k.out.Shape[:r], append(slices.Clone(k.ins), k.out), nil)
	if slabs == nil {
		l, err := encodeRows(k, t)
		if err != nil {
			return nil, err
		}
		return []*Launch{l}, nil
	}
	ls := make([]*Launch, len(slabs))
	for i, s := range slabs {
		sk := k
		sk.ins, sk.out = s.views(k.ins), s.view(k.out)
		l, err := encodeRows(sk, t)
		if err != nil {
			return nil, err
		}
		ls[i] = l
	}
	return ls, nil
}

// encodeRows encodes a validated row kernel (see doc.go's layout).
func encodeRows(k rowKernel, t Target) (*Launch, error) {
	e := newEncoder(k.name, t)
	r := len(k.out.Shape) - 1
	n := k.out.Shape[r]
	rows := device.NumElements(k.out.Shape[:r])
	e.set(hN, e.count(rows))
	e.set(hK, e.count(n))
	e.set(hK+1, k.arg)
	tpr := softmaxThreads(n)
	e.set(hK+3, uint32(tpr))
	// Each invocation loops over its elements of the row k.passes times.
	e.checkLoops(fmt.Sprintf("a row of %d elements", n), k.passes*ceilDiv(n, tpr))
	strides := make([][]int, len(k.ins))
	for i, v := range k.ins {
		strides[i] = v.Strides[:r]
	}
	shape, st := coalesce(k.out.Shape[:r], strides)
	e.set(hK+2, uint32(len(shape)))
	e.set(hK+5, uint32(e.here()))
	e.putInts(shape)
	// In (or Y) at word 10, Out at 11, G at 12.
	for i, v := range k.ins {
		d := uint32(e.view(v, append(slices.Clip(st[i]), v.Strides[r]), false))
		e.set(hK+6+2*i, d)
	}
	e.set(hK+7, uint32(e.view(k.out, nil, true)))
	return e.finish(&Launch{Kind: shaders.Softmax, Entry: k.entry, Workgroups: ceilDiv(e.countInt(rows), WorkgroupSize/tpr)})
}

// softmaxRowElems is how many elements of a short row each of its
// invocations takes (fewer, larger workgroups run faster on lavapipe,
// whose cost is mostly per workgroup).
const softmaxRowElems = 8

// softmaxThreads returns the invocations that take one row of n elements:
// the power of two that gives each about softmaxRowElems elements, at most
// a workgroup. Rows of up to softmaxRowElems elements take one invocation
// each, 256 to a workgroup.
func softmaxThreads(n int) int {
	t := 1
	for t < WorkgroupSize && t*softmaxRowElems < n {
		t *= 2
	}
	return t
}
