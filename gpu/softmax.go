package gpu

import (
	"fmt"
	"slices"

	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodeSoftmaxSlabs validates and encodes a row softmax (or log-softmax)
// as one launch (a row per workgroup, or several short rows per
// workgroup: softmaxThreads), or, when its views span more than
// one binding on t, one launch per slab of the rows' dimensions (slabs.go;
// a single row that spans more is refused). The launches may run in any
// order. A row whose two passes take more loop iterations than the device
// runs is refused.
func EncodeSoftmaxSlabs(k *device.SoftmaxKernel, t Target) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	r := len(k.In.Shape) - 1
	slabs := splitSpace(t, k.In.Shape[:r], []device.View{k.In, k.Out}, nil)
	if slabs == nil {
		l, err := encodeSoftmax(k, t)
		if err != nil {
			return nil, err
		}
		return []*Launch{l}, nil
	}
	ls := make([]*Launch, len(slabs))
	for i, s := range slabs {
		l, err := encodeSoftmax(&device.SoftmaxKernel{In: s.view(k.In), Out: s.view(k.Out), Log: k.Log}, t)
		if err != nil {
			return nil, err
		}
		ls[i] = l
	}
	return ls, nil
}

// encodeSoftmax encodes a validated row softmax (see doc.go's layout).
func encodeSoftmax(k *device.SoftmaxKernel, t Target) (*Launch, error) {
	e := newEncoder("softmax", t)
	r := len(k.In.Shape) - 1
	n := k.In.Shape[r]
	rows := device.NumElements(k.In.Shape[:r])
	e.set(hN, e.count(rows))
	e.set(hK, e.count(n))
	if k.Log {
		e.set(hK+1, 1)
	}
	tpr := softmaxThreads(n)
	e.set(hK+3, uint32(tpr))
	// Each invocation reads its elements of the row, then writes them.
	e.checkLoops(fmt.Sprintf("a row of %d elements", n), 2*ceilDiv(n, tpr))
	shape, st := coalesce(k.In.Shape[:r], [][]int{k.In.Strides[:r]})
	e.set(hK+2, uint32(len(shape)))
	e.set(hK+5, uint32(e.here()))
	e.putInts(shape)
	e.set(hK+6, uint32(e.view(k.In, append(slices.Clip(st[0]), k.In.Strides[r]), false)))
	e.set(hK+7, uint32(e.view(k.Out, nil, true)))
	return e.finish(&Launch{Kind: shaders.Softmax, Entry: "softmax_rows", Workgroups: ceilDiv(e.countInt(rows), WorkgroupSize/tpr)})
}

// softmaxElemsPerThread is how many elements of a short row each of its
// invocations takes: rows of up to this many elements take one invocation
// each, 256 to a workgroup.
const softmaxElemsPerThread = 8

// softmaxThreads returns the invocations that normalize one row of n
// elements: the power of two that gives each about softmaxElemsPerThread
// elements, at most a workgroup.
func softmaxThreads(n int) int {
	t := 1
	for t < WorkgroupSize && t*softmaxElemsPerThread < n {
		t *= 2
	}
	return t
}
