package gpu

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// convPlan is one part of a convolution's plan: the convolution over a
// slab of its images and its depth split.
type convPlan struct {
	k     *device.ConvKernel
	split depthSplit
}

// convPlans returns k with its depth split, or, when its views span more
// than one binding on t, its convolutions over slabs of its images N
// (slabs.go), which bind the weights whole. Forward and backward-input
// slabs write their own images of the result, their epilogue at the slab's
// position base; backward-weight slabs each contribute to the whole weight
// gradient, so each writes its partial sums to scratch after the earlier
// slabs' (planPartial) and one sum over all of them runs the epilogue
// (EncodeConvSplit). A single image whose views span more stays one slab,
// which the binding plan refuses.
func convPlans(k *device.ConvKernel, t Target) []convPlan {
	g := k.Geom
	result := slices.Concat(k.EpilogueInputs, k.Outputs)
	weights := k.Mode == device.ConvBackwardWeight
	split, fixed := slices.Concat([]device.View{k.A}, result), []device.View{k.B}
	if weights {
		split, fixed = []device.View{k.A, k.B}, result
	}
	slabs := splitSpace(t, []int{g.N}, split, fixed)
	if slabs == nil {
		_, _, depth := convProduct(k)
		return []convPlan{{k: k, split: planDepth(depth, device.NumElements(k.ResultShape()), t)}}
	}
	perImage := device.NumElements(k.ResultShape()[1:])
	out := make([]convPlan, len(slabs))
	offset := 0
	for i, s := range slabs {
		sub := *k
		sub.Geom.N, sub.A = s.shape[0], s.view(k.A)
		if weights {
			sub.B = s.view(k.B)
		} else {
			sub.EpilogueInputs, sub.Outputs = s.views(k.EpilogueInputs), s.views(k.Outputs)
		}
		_, _, depth := convProduct(&sub)
		n := device.NumElements(sub.ResultShape())
		var ds depthSplit
		if weights {
			ds = planPartial(depth, n, offset, t)
			offset += ds.parts
		} else {
			ds = planDepth(depth, n, t)
			ds.base = s.base * perImage
		}
		out[i] = convPlan{k: &sub, split: ds}
	}
	return out
}
