package cuda

import (
	"github.com/shaderflow/shaderflow/tensor/device"
)

// The patch matrix kernels' entry points (kernels/im2col.cu).
const (
	im2colEntry = "sf_im2col"
	col2imEntry = "sf_col2im"
)

// colMaxRank is the most spatial dimensions the patch matrix kernels take
// (kernels/im2col.cu's SF_COL_MAX_RANK, the convolutions' limit).
const colMaxRank = 3

// convGEMMPlan is a convolution run as matrix products: depth is C times
// the window's taps (the products' depth for the forward convolution),
// outs the output positions an image, colsElems the patch matrix's
// elements ([N, depth, outs]).
type convGEMMPlan struct {
	g                      device.ConvGeometry
	taps, outs, depth, ins int64
	colsElems              int64
}

// planConvGEMM returns the plan of k as products, or false when k is not
// one: grouped, empty, with an operand or epilogue view whose dimensions
// do not merge into the products' (W's channel and window dimensions, the
// images' spatial ones), or needing more than maxScratch bytes of scratch.
func planConvGEMM(k *device.ConvKernel, maxScratch int64) (convGEMMPlan, bool) {
	g := k.Geom
	p := convGEMMPlan{g: g, taps: prod(g.Kernel), outs: prod(g.Out), ins: prod(g.In)}
	p.depth = int64(g.C) * p.taps
	if g.Groups != 1 || g.N == 0 || g.O == 0 || p.depth == 0 || p.outs == 0 || p.ins == 0 || len(g.In) > colMaxRank {
		return p, false
	}
	limit := float64(maxScratch) / 4
	cols := float64(g.N) * float64(p.depth) * float64(p.outs)
	scratch := cols
	mergeable := true
	flat := func(vs []device.View, keep int) {
		for _, v := range vs {
			_, ok := flatten(v, keep)
			mergeable = mergeable && ok
		}
	}
	flat([]device.View{k.B}, 1) // W, or X for the weight gradient (never merged past N and C)
	switch k.Mode {
	case device.ConvForward:
		flat(k.EpilogueInputs, 2)
	case device.ConvBackwardInput:
		flat([]device.View{k.A}, 2)
		scratch += float64(g.N) * float64(g.C) * float64(p.ins)
	default:
		flat([]device.View{k.A}, 2)
		flat(k.EpilogueInputs, 1)
		scratch += float64(g.N) * float64(g.O) * float64(p.depth)
	}
	if !mergeable || scratch > limit {
		return p, false
	}
	p.colsElems = int64(cols)
	return p, true
}

// prod returns the product of xs.
func prod(xs []int) int64 {
	n := int64(1)
	for _, x := range xs {
		n *= int64(x)
	}
	return n
}

// flatten returns v with its dimensions from keep on merged into one (of
// their elements, with the innermost stride), or false when their strides
// do not allow it. Dimensions of size one merge with anything.
func flatten(v device.View, keep int) (device.View, bool) {
	st, size, seen := 1, 1, false
	for i := len(v.Shape) - 1; i >= keep; i-- {
		switch {
		case v.Shape[i] == 1:
		case !seen:
			st, size, seen = v.Strides[i], v.Shape[i], true
		case v.Strides[i] == st*size:
			size *= v.Shape[i]
		default:
			return device.View{}, false
		}
	}
	n := 1
	for _, s := range v.Shape[keep:] {
		n *= s
	}
	return device.View{Buf: v.Buf, DType: v.DType, Offset: v.Offset,
		Shape:   append(append([]int{}, v.Shape[:keep]...), n),
		Strides: append(append([]int{}, v.Strides[:keep]...), st)}, true
}

// flattenAll is flatten of each view, which planConvGEMM checked.
func flattenAll(vs []device.View, keep int) []device.View {
	out := make([]device.View, len(vs))
	for i, v := range vs {
		out[i], _ = flatten(v, keep)
	}
	return out
}

// colWords returns the words of a patch matrix launch of n elements
// (kernels/im2col.cu's sf_col_params): x is X's view (im2col) or the
// contiguous destination (col2im), at address xPtr; colsPtr the patch
// matrix's address.
func (p convGEMMPlan) colWords(x device.View, xPtr, colsPtr uint64, n int64) []int64 {
	g := p.g
	w := []int64{n, int64(len(g.In)), int64(g.C), p.taps, p.outs}
	for _, dims := range [][]int{g.In, g.Kernel, g.Out, g.Stride, g.Padding, g.Dilation} {
		var a [colMaxRank]int64
		for i, v := range dims {
			a[i] = int64(v)
		}
		w = append(w, a[:]...)
	}
	w = append(w, int64(xPtr), int64(colsPtr), int64(x.Offset))
	var st [2 + colMaxRank]int64
	for i, s := range x.Strides {
		st[i] = int64(s)
	}
	return append(w, st[:]...)
}

// weightsAs returns W ([O, C, window...]) as the products' operand over
// the batch of images (stride 0): [N, O, depth], or transposed [N, depth, O].
func (p convGEMMPlan) weightsAs(w device.View, transposed bool) device.View {
	f, _ := flatten(w, 1)
	shape, strides := []int{p.g.N, p.g.O, int(p.depth)}, []int{0, f.Strides[0], f.Strides[1]}
	if transposed {
		shape[1], shape[2], strides[1], strides[2] = shape[2], shape[1], strides[2], strides[1]
	}
	return device.View{Buf: w.Buf, DType: device.Float32, Offset: w.Offset, Shape: shape, Strides: strides}
}

// forward is the forward convolution's product: Y[n] = W · cols[n], with
// k's epilogue.
func (p convGEMMPlan) forward(k *device.ConvKernel, cols device.Buffer) *device.MatMulKernel {
	g := p.g
	return &device.MatMulKernel{Batch: []int{g.N}, M: g.O, N: int(p.outs), K: int(p.depth),
		A: p.weightsAs(k.B, false), B: device.Contiguous(cols, device.Float32, 0, []int{g.N, int(p.depth), int(p.outs)}),
		EpilogueInputs: flattenAll(k.EpilogueInputs, 2), Epilogue: k.Epilogue, Outputs: flattenAll(k.Outputs, 2)}
}

// inputProduct is the input gradient's product into the patch matrix:
// cols[n] = Wᵀ · dY[n].
func (p convGEMMPlan) inputProduct(k *device.ConvKernel, cols device.Buffer) *device.MatMulKernel {
	g := p.g
	dy, _ := flatten(k.A, 2)
	return &device.MatMulKernel{Batch: []int{g.N}, M: int(p.depth), N: int(p.outs), K: g.O,
		A: p.weightsAs(k.B, true), B: dy, Epilogue: device.Identity(device.Float32),
		Outputs: []device.View{device.Contiguous(cols, device.Float32, 0, []int{g.N, int(p.depth), int(p.outs)})}}
}

// weightProducts is the weight gradient's product per image: sums[n] =
// dY[n] · cols[n]ᵀ.
func (p convGEMMPlan) weightProducts(k *device.ConvKernel, cols, sums device.Buffer) *device.MatMulKernel {
	g := p.g
	dy, _ := flatten(k.A, 2)
	d, o := int(p.depth), int(p.outs)
	return &device.MatMulKernel{Batch: []int{g.N}, M: g.O, N: d, K: o, A: dy,
		B:        device.View{Buf: cols, DType: device.Float32, Shape: []int{g.N, o, d}, Strides: []int{d * o, 1, o}},
		Epilogue: device.Identity(device.Float32),
		Outputs:  []device.View{device.Contiguous(sums, device.Float32, 0, []int{g.N, g.O, d})}}
}

// weightSum sums the per-image weight gradients over the images, with k's
// epilogue.
func (p convGEMMPlan) weightSum(k *device.ConvKernel, sums device.Buffer) *device.ReduceKernel {
	g := p.g
	d := int(p.depth)
	return &device.ReduceKernel{Op: device.ReduceSum, OutShape: []int{g.O, d}, RedShape: []int{g.N},
		Inputs:   []device.View{{Buf: sums, DType: device.Float32, Shape: []int{g.O, d, g.N}, Strides: []int{d, 1, g.O * d}}},
		Prologue: device.Identity(device.Float32), EpilogueInputs: flattenAll(k.EpilogueInputs, 1),
		Epilogue: k.Epilogue, Outputs: flattenAll(k.Outputs, 1)}
}

// identityStore reports whether epilogue p stores its input 0 alone,
// unchanged, to one float32 output.
func identityStore(p device.Program, outs []device.View) bool {
	return len(outs) == 1 && outs[0].DType == device.Float32 && len(p.Code) == 1 &&
		len(p.Outputs) == 1 && p.Outputs[0] == 0 && p.Code[0].Op == device.OpInput && p.Code[0].Index == 0 &&
		p.Code[0].Type == device.Float32
}
