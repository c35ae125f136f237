package gpu

import (
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// tileEdge is the edge of the result blocks of the tiled kernels, matmul
// and conv (tile.wgsl's TILE).
const tileEdge = 64

// EncodeConv validates and encodes a convolution in any mode as one
// launch of a tiled implicit matrix product per group (conv.wgsl): one
// workgroup per tileEdge x tileEdge block of a group's product, the
// epilogue in block 0. A convolution whose depth needs a split on t
// (ConvScratchBytes > 0) or whose views span more than one binding is
// refused: EncodeConvSplit runs it.
func EncodeConv(k *device.ConvKernel, t Target) (*Launch, error) {
	ls, err := EncodeConvSplit(k, t, nil)
	return single("conv", "EncodeConvSplit", ls, err)
}

// ConvScratchBytes returns the scratch memory EncodeConvSplit needs for k
// on t: 0 when k runs as one launch (or one launch per slab).
func ConvScratchBytes(k *device.ConvKernel, t Target) int64 {
	var most int64
	for _, s := range convPlans(k, t) {
		most = max(most, s.split.scratchBytes(device.NumElements(s.k.ResultShape())))
	}
	return most
}

// EncodeConvSplit validates and encodes a convolution: one launch, or,
// when a product's depth is too long for one workgroup's loop on t, a
// launch over chunks of the depth writing partial sums to scratch (at least
// ConvScratchBytes(k, t) bytes; nil when that is 0) and a reduction that
// adds them up and runs the epilogue; when its views span more than one
// binding on t, it does so for each slab of its images (convslabs.go).
// The launches must run in order.
func EncodeConvSplit(k *device.ConvKernel, t Target, scratch device.Buffer) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	plans := convPlans(k, t)
	var ls []*Launch
	for _, p := range plans {
		l, err := encodeConv(p.k, t, p.split, scratch)
		if err != nil {
			return nil, err
		}
		ls = append(ls, l...)
	}
	if last := plans[len(plans)-1].split; last.summed { // slabs of a weight gradient
		sum, err := sumParts(scratch, last.offset+last.parts, 0, k.ResultShape(), k.EpilogueInputs, k.Epilogue, k.Outputs, t)
		if err != nil {
			return nil, err
		}
		ls = append(ls, sum)
	}
	return ls, nil
}

// encodeConv encodes a validated convolution with its depth split s: the
// product launch and, unless s leaves its partial sums to a sum over
// slabs, the reduction that adds them up.
func encodeConv(k *device.ConvKernel, t Target, s depthSplit, scratch device.Buffer) ([]*Launch, error) {
	rs := k.ResultShape()
	n := device.NumElements(rs)
	m, cols, depth := convProduct(k)
	if err := s.withScratch("conv", n, scratch); err != nil {
		return nil, err
	}
	e := newEncoder("conv", t)
	g := k.Geom
	e.putGeometry(g)
	e.set(hN, e.count(n))
	tn, tm := ceilDiv(cols, tileEdge), ceilDiv(m, tileEdge)
	for i, v := range []int{int(k.Mode), g.Groups, g.N, g.C, g.O} {
		e.set(hK+i, e.count(v))
	}
	e.set(hK+5, uint32(e.view5(k.A)))
	e.set(hK+6, uint32(e.view5(k.B)))
	for i, v := range []int{m, cols, depth, tn, tm} {
		e.set(hK+7+i, e.count(v))
	}
	epi := s.epilogue(e, rs, k.EpilogueInputs, k.Epilogue, k.Outputs)
	first, err := e.finish(&Launch{Kind: shaders.Conv, Entry: "conv", Workgroups: e.countInt(s.parts * g.Groups * tm * tn), Hooks: []Hook{epi}})
	if err != nil {
		return nil, err
	}
	return s.launches(first, rs, k.EpilogueInputs, k.Epilogue, k.Outputs, t)
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
