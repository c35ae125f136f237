package ref

import (
	"fmt"
	"slices"
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
	var out []float64
	shape := convTaps(x, w, opt, func(outShape []int) {
		out = make([]float64, numElements(outShape))
		if bias != nil {
			per := numElements(outShape[2:])
			for i := range out {
				out[i] = bias.At(i / per % outShape[1])
			}
		}
	}, func(yi, xi, wi int) { out[yi] += xc.data[xi] * wc.data[wi] })
	return New(out, shape...)
}

// ConvGrads returns the gradients with respect to x and w of sum(Conv(x, w)
// * dy): the convolution's backward-input and backward-weight products.
func ConvGrads(x, w, dy *Array, opt ConvOptions) (dx, dw *Array) {
	xc, wc, dyc := x.Contiguous(), w.Contiguous(), dy.Contiguous()
	gx := make([]float64, len(xc.data))
	gw := make([]float64, len(wc.data))
	convTaps(x, w, opt, func(outShape []int) {
		if !slices.Equal(outShape, dy.shape) {
			panic(fmt.Sprintf("ref.ConvGrads: dy %v for output %v", dy.shape, outShape))
		}
	}, func(yi, xi, wi int) {
		gx[xi] += dyc.data[yi] * wc.data[wi]
		gw[wi] += dyc.data[yi] * xc.data[xi]
	})
	return New(gx, x.shape...), New(gw, w.shape...)
}

// convTaps checks a convolution of x with w, calls start with its output
// shape, then calls f(yi, xi, wi) for every product x[xi] * w[wi] that
// output element yi sums (row-major positions), and returns the output
// shape.
func convTaps(x, w *Array, opt ConvOptions, start func(outShape []int), f func(yi, xi, wi int)) []int {
	op := fmt.Sprintf("Conv%dd", x.Dim()-2)
	groups := max(opt.Groups, 1)
	if x.Dim() < 3 || w.Dim() != x.Dim() {
		panic(fmt.Sprintf("ref.%s: input %v and weight %v", op, x.shape, w.shape))
	}
	n, c, o := x.shape[0], x.shape[1], w.shape[0]
	if c%groups != 0 || o%groups != 0 || w.shape[1] != c/groups {
		panic(fmt.Sprintf("ref.%s: input %v, weight %v, groups %d do not fit", op, x.shape, w.shape, groups))
	}
	g := newGeometry(op, x.shape[2:], w.shape[2:], opt.Stride, opt.Padding, opt.Dilation)
	cg, og := c/groups, o/groups
	spatialIn := numElements(g.in)
	spatialK := numElements(g.kernel)
	outShape := append([]int{n, o}, g.out...)
	start(outShape)
	pos := make([]int, len(g.in))
	yi := 0
	forEachIndex(outShape, func(idx []int) {
		b, oc, opos := idx[0], idx[1], idx[2:]
		grp := oc / og
		ki := 0
		forEachIndex(g.kernel, func(k []int) {
			if g.inputPos(opos, k, pos) {
				xi := flatIndex(pos, g.in)
				for ci := range cg {
					f(yi, (b*c+grp*cg+ci)*spatialIn+xi, (oc*cg+ci)*spatialK+ki)
				}
			}
			ki++
		})
		yi++
	})
	return outShape
}

// flatIndex is the row-major position of idx in shape.
func flatIndex(idx, shape []int) int {
	p := 0
	for d, x := range idx {
		p = p*shape[d] + x
	}
	return p
}
