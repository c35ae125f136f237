package ref

import (
	"fmt"
	"slices"
	"sync"
)

// ConvOptions are the geometry of a convolution. Each list holds one value
// per spatial dimension, or a single value for all of them; nil means stride
// 1, padding 0, dilation 1. Groups 0 means 1.
type ConvOptions struct {
	Stride, Padding, Dilation []int
	Groups                    int
}

// geometry is a resolved window geometry over the spatial dimensions.
type geometry struct {
	in, kernel, out, stride, padding, dilation []int
}

// perDim broadcasts an option list to nd values.
func perDim(op, name string, v []int, def, nd int) []int {
	out := make([]int, nd)
	switch len(v) {
	case 0:
		for i := range out {
			out[i] = def
		}
	case 1:
		for i := range out {
			out[i] = v[0]
		}
	case nd:
		copy(out, v)
	default:
		panic(fmt.Sprintf("ref.%s: %s %v for %d spatial dimensions", op, name, v, nd))
	}
	return out
}

// newGeometry resolves the output size of a window of kernel over in.
func newGeometry(op string, in, kernel, stride, padding, dilation []int) geometry {
	nd := len(in)
	g := geometry{in: in, kernel: kernel,
		stride:   perDim(op, "stride", stride, 1, nd),
		padding:  perDim(op, "padding", padding, 0, nd),
		dilation: perDim(op, "dilation", dilation, 1, nd),
	}
	g.out = make([]int, nd)
	for d := range nd {
		if g.stride[d] < 1 || g.dilation[d] < 1 || g.padding[d] < 0 {
			panic(fmt.Sprintf("ref.%s: bad stride %v, padding %v or dilation %v", op, g.stride, g.padding, g.dilation))
		}
		span := g.dilation[d]*(kernel[d]-1) + 1
		g.out[d] = (in[d]+2*g.padding[d]-span)/g.stride[d] + 1
		if in[d]+2*g.padding[d] < span {
			panic(fmt.Sprintf("ref.%s: window %v (dilation %v) larger than padded input %v", op, kernel, g.dilation, in))
		}
	}
	return g
}

// inputPos returns the input position along every spatial dimension of window
// element k for output position o, and whether it lies inside the input.
func (g geometry) inputPos(o, k, pos []int) bool {
	inside := true
	for d := range o {
		pos[d] = o[d]*g.stride[d] - g.padding[d] + k[d]*g.dilation[d]
		if pos[d] < 0 || pos[d] >= g.in[d] {
			inside = false
		}
	}
	return inside
}

// Conv is an N-d grouped, strided, padded, dilated cross-correlation (what
// PyTorch calls convolution) of x [N, C, in...] with w [O, C/groups, k...],
// plus bias [O] when bias is not nil.
func Conv(x, w, bias *Array, opt ConvOptions) *Array {
	if bias != nil && (bias.Dim() != 1 || bias.shape[0] != w.shape[0]) {
		panic(fmt.Sprintf("ref.Conv: bias %v for %d output channels", bias.shape, w.shape[0]))
	}
	xc, wc := x.Contiguous(), w.Contiguous()
	p := planConv(x, w, opt)
	out := make([]float64, numElements(p.outShape))
	if bias != nil {
		for i := range out {
			out[i] = bias.At(i / p.outSpatial % p.o)
		}
	}
	// The products in the order p.each visits them, without a call each.
	yi := 0
	for b := range p.n {
		for oc := range p.o {
			xBase, wBase := p.bases(b, oc)
			for q := range p.outSpatial {
				sum := out[yi]
				for ki, xi := range p.taps[q*p.spatialK : (q+1)*p.spatialK] {
					if xi < 0 {
						continue
					}
					for ci := range p.cg {
						sum += xc.data[xBase+ci*p.spatialIn+xi] * wc.data[wBase+ci*p.spatialK+ki]
					}
				}
				out[yi] = sum
				yi++
			}
		}
	}
	return New(out, p.outShape...)
}

// ConvGrads returns the gradients with respect to x and w of sum(Conv(x, w)
// * dy): the convolution's backward-input and backward-weight products.
func ConvGrads(x, w, dy *Array, opt ConvOptions) (dx, dw *Array) {
	xc, wc, dyc := x.Contiguous(), w.Contiguous(), dy.Contiguous()
	p := planConv(x, w, opt)
	if !slices.Equal(p.outShape, dy.shape) {
		panic(fmt.Sprintf("ref.ConvGrads: dy %v for output %v", dy.shape, p.outShape))
	}
	gx := make([]float64, len(xc.data))
	gw := make([]float64, len(wc.data))
	p.each(func(yi, xi, wi int) {
		gx[xi] += dyc.data[yi] * wc.data[wi]
		gw[wi] += dyc.data[yi] * xc.data[xi]
	})
	return New(gx, x.shape...), New(gw, w.shape...)
}

// convPlan is where a convolution's products read: its sizes and, for
// every output position and kernel element, the input position.
type convPlan struct {
	outShape                        []int
	n, c, o, cg, og                 int
	spatialIn, spatialK, outSpatial int
	taps                            []int // [outSpatial*spatialK]: input position, or -1 in the padding
}

// convPlans caches plans by geometry: finite differences evaluate the same
// convolution thousands of times.
var convPlans sync.Map

// planConv checks a convolution of x with w and returns its plan.
func planConv(x, w *Array, opt ConvOptions) *convPlan {
	op := fmt.Sprintf("Conv%dd", x.Dim()-2)
	groups := max(opt.Groups, 1)
	if x.Dim() < 3 || w.Dim() != x.Dim() {
		panic(fmt.Sprintf("ref.%s: input %v and weight %v", op, x.shape, w.shape))
	}
	n, c, o := x.shape[0], x.shape[1], w.shape[0]
	if c%groups != 0 || o%groups != 0 || w.shape[1] != c/groups {
		panic(fmt.Sprintf("ref.%s: input %v, weight %v, groups %d do not fit", op, x.shape, w.shape, groups))
	}
	key := fmt.Sprint(x.shape, w.shape, opt)
	if p, ok := convPlans.Load(key); ok {
		return p.(*convPlan)
	}
	g := newGeometry(op, x.shape[2:], w.shape[2:], opt.Stride, opt.Padding, opt.Dilation)
	p := &convPlan{outShape: append([]int{n, o}, g.out...), n: n, c: c, o: o, cg: c / groups, og: o / groups,
		spatialIn: numElements(g.in), spatialK: numElements(g.kernel), outSpatial: numElements(g.out)}
	p.taps = make([]int, 0, p.outSpatial*p.spatialK)
	pos := make([]int, len(g.in))
	forEachIndex(g.out, func(opos []int) {
		forEachIndex(g.kernel, func(k []int) {
			xi := -1
			if g.inputPos(opos, k, pos) {
				xi = flatIndex(pos, g.in)
			}
			p.taps = append(p.taps, xi)
		})
	})
	convPlans.Store(key, p)
	return p
}

// bases are the positions of image b's first input channel of oc's group
// and of output channel oc's first weight.
func (p *convPlan) bases(b, oc int) (xBase, wBase int) {
	return (b*p.c + oc/p.og*p.cg) * p.spatialIn, oc * p.cg * p.spatialK
}

// each calls f(yi, xi, wi) for every product x[xi] * w[wi] that output
// element yi sums (row-major positions), output by output.
func (p *convPlan) each(f func(yi, xi, wi int)) {
	yi := 0
	for b := range p.n {
		for oc := range p.o {
			xBase, wBase := p.bases(b, oc)
			for q := range p.outSpatial {
				for ki, xi := range p.taps[q*p.spatialK : (q+1)*p.spatialK] {
					if xi < 0 {
						continue
					}
					for ci := range p.cg {
						f(yi, xBase+ci*p.spatialIn+xi, wBase+ci*p.spatialK+ki)
					}
				}
				yi++
			}
		}
	}
}

// flatIndex is the row-major position of idx in shape.
func flatIndex(idx, shape []int) int {
	p := 0
	for d, x := range idx {
		p = p*shape[d] + x
	}
	return p
}
