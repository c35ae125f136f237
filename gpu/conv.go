package gpu

import (
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodeConv validates and encodes a convolution in any mode: one
// invocation per result element, the epilogue in block 0.
func EncodeConv(k *device.ConvKernel, t Target) (*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	e := newEncoder("conv", t)
	g := k.Geom
	e.putGeometry(g)
	rs := k.ResultShape()
	n := device.NumElements(rs)
	e.set(hN, e.count(n))
	for i, v := range []int{int(k.Mode), g.Groups, g.N, g.C, g.O} {
		e.set(hK+i, e.count(v))
	}
	e.set(hK+5, uint32(e.view5(k.A)))
	e.set(hK+6, uint32(e.view5(k.B)))
	epi := e.block(hProg0, HookEpilogue, k.Epilogue, rs, k.EpilogueInputs, k.Outputs, true)
	return e.finish(&Launch{Kind: shaders.Conv, Entry: "conv", Workgroups: ceilDiv(n, WorkgroupSize), Hooks: []Hook{epi}})
}
