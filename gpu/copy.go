package gpu

import (
	"slices"

	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodeCopy validates and encodes a view-to-view copy: one invocation per
// element, dimensions coalesced. A copy whose views span more than one
// binding is refused: EncodeCopySlabs runs it.
func EncodeCopy(k *device.CopyKernel, t Target) (*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if err := checkDTypes(k); err != nil {
		return nil, err
	}
	return encodeCopy(k, t)
}

// EncodeCopySlabs validates and encodes a copy as one launch, or, when its
// views span more than one binding on t, one launch per slab of its shape
// (slabs.go). The launches may run in any order.
func EncodeCopySlabs(k *device.CopyKernel, t Target) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if err := checkDTypes(k); err != nil {
		return nil, err
	}
	slabs := splitSpace(t, k.Src.Shape, []device.View{k.Dst, k.Src}, nil)
	if slabs == nil {
		l, err := encodeCopy(k, t)
		if err != nil {
			return nil, err
		}
		return []*Launch{l}, nil
	}
	ls := make([]*Launch, len(slabs))
	for i, s := range slabs {
		l, err := encodeCopy(&device.CopyKernel{Dst: s.view(k.Dst), Src: s.view(k.Src)}, t)
		if err != nil {
			return nil, err
		}
		ls[i] = l
	}
	return ls, nil
}

// encodeCopy encodes a validated copy.
func encodeCopy(k *device.CopyKernel, t Target) (*Launch, error) {
	e := newEncoder("copy", t)
	n := k.Src.NumElements()
	e.set(hN, e.count(n))
	shape, st := coalesce(k.Src.Shape, [][]int{k.Dst.Strides, k.Src.Strides})
	contig := device.ContiguousStrides(shape)
	e.set(hK+1, uint32(len(shape)))
	e.set(hK+5, uint32(e.here()))
	e.putInts(shape)
	e.set(hK+6, uint32(e.view(k.Dst, st[0], slices.Equal(st[0], contig))))
	e.set(hK+7, uint32(e.view(k.Src, st[1], slices.Equal(st[1], contig))))
	return e.finish(&Launch{Kind: shaders.Copy, Entry: "copy_view", Workgroups: ceilDiv(n, WorkgroupSize)})
}
