package gpu

import (
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// tileEdge is the edge of the result blocks of the tiled kernels, matmul
// and conv (tile.wgsl's TILE).
const tileEdge = 64

// EncodeConv validates and encodes a convolution in any mode as a tiled
// implicit matrix product per group (conv.wgsl): one workgroup per
// tileEdge x tileEdge block of a group's product, the epilogue in block 0.
func EncodeConv(k *device.ConvKernel, t Target) (*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	e := newEncoder("conv", t)
	g := k.Geom
	e.putGeometry(g)
	rs := k.ResultShape()
	e.set(hN, e.count(device.NumElements(rs)))
	m, cols, depth := convProduct(k)
	tn, tm := ceilDiv(cols, tileEdge), ceilDiv(m, tileEdge)
	for i, v := range []int{int(k.Mode), g.Groups, g.N, g.C, g.O} {
		e.set(hK+i, e.count(v))
	}
	e.set(hK+5, uint32(e.view5(k.A)))
	e.set(hK+6, uint32(e.view5(k.B)))
	for i, v := range []int{m, cols, depth, tn, tm} {
		e.set(hK+7+i, e.count(v))
	}
	epi := e.block(hProg0, HookEpilogue, k.Epilogue, rs, k.EpilogueInputs, k.Outputs, true)
	return e.finish(&Launch{Kind: shaders.Conv, Entry: "conv", Workgroups: e.countInt(g.Groups * tm * tn), Hooks: []Hook{epi}})
}

// convProduct returns the rows, columns and depth of one group's matrix
// product in k's mode (the table in conv.wgsl).
func convProduct(k *device.ConvKernel) (m, cols, depth int) {
	g := k.Geom
	cg, og := g.C/g.Groups, g.O/g.Groups
	taps := device.NumElements(g.Kernel)
	switch k.Mode {
	case device.ConvBackwardInput:
		return g.N * device.NumElements(g.In), cg, og * taps
	case device.ConvBackwardWeight:
		return og, cg * taps, g.N * device.NumElements(g.Out)
	}
	return g.N * device.NumElements(g.Out), og, cg * taps
}
