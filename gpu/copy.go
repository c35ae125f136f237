package gpu

import (
	"slices"

	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodeCopy validates and encodes a view-to-view copy: one invocation per
// element, dimensions coalesced.
func EncodeCopy(k *device.CopyKernel, t Target) (*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
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
