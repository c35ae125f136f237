package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/internal/checked"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// ConvTransposeOptions are the parameters of a transposed convolution, as
// PyTorch's conv_transpose: Stride, Padding, OutputPadding and Dilation hold
// one value for every spatial dimension or a single value for all; nil means
// stride 1, padding 0, output padding 0, dilation 1. Groups 0 means 1.
type ConvTransposeOptions struct {
	Stride, Padding, OutputPadding, Dilation []int
	Groups                                   int
}

// ConvTranspose1d is torch.nn.functional.conv_transpose1d: the transposed
// convolution of [N, Cin, L] by weight [Cin, Cout/groups, K], plus bias
// [Cout] when not nil, giving [N, Cout, (L-1)·stride - 2·padding +
// dilation·(K-1) + outputPadding + 1].
func (t *Tensor) ConvTranspose1d(w, bias *Tensor, o ConvTransposeOptions) *Tensor {
	return t.convTranspose(opConvTranspose1d, 1, w, bias, o)
}

// ConvTranspose2d is torch.nn.functional.conv_transpose2d over [N, Cin, H, W]
// with weight [Cin, Cout/groups, KH, KW] (see ConvTranspose1d).
func (t *Tensor) ConvTranspose2d(w, bias *Tensor, o ConvTransposeOptions) *Tensor {
	return t.convTranspose(opConvTranspose2d, 2, w, bias, o)
}

// ConvTranspose3d is torch.nn.functional.conv_transpose3d over
// [N, Cin, D, H, W] with weight [Cin, Cout/groups, KD, KH, KW] (see
// ConvTranspose1d).
func (t *Tensor) ConvTranspose3d(w, bias *Tensor, o ConvTransposeOptions) *Tensor {
	return t.convTranspose(opConvTranspose3d, 3, w, bias, o)
}

// convTranspose records the nd-dimensional transposed convolution: the
// input gradient of the convolution whose output has t's shape (the
// device's ConvBackwardInput mode), with its own gradient rule.
func (t *Tensor) convTranspose(op gradOp, nd int, w, bias *Tensor, o ConvTransposeOptions) *Tensor {
	return t.convLayer(op, device.ConvBackwardInput, w, bias, func(name string) device.ConvGeometry {
		return convTransposeGeometry(name, nd, t, w, o)
	})
}

// convTransposeGeometry validates x and w and returns the geometry of the
// convolution that the transposed one inverts: its input is the result, its
// output x.
func convTransposeGeometry(op string, nd int, x, w *Tensor, o ConvTransposeOptions) device.ConvGeometry {
	if x.Dim() != nd+2 || w.Dim() != nd+2 {
		usage(op, "input %v and weight %v must both have %d dimensions", x.shape, w.shape, nd+2)
	}
	groups := max(o.Groups, 1)
	cout, ok := checked.Mul(w.shape[1], groups)
	if !ok || x.shape[1] != w.shape[0] || w.shape[0]%groups != 0 {
		usage(op, "input %v, weight %v and groups %d do not agree (weight must be [in, out/groups, k...])", x.shape, w.shape, groups)
	}
	g := device.ConvGeometry{
		N: x.shape[0], C: cout, O: x.shape[1], Groups: groups,
		Out: slices.Clone(x.shape[2:]), Kernel: slices.Clone(w.shape[2:]),
		Stride:   spatial(op, "stride", o.Stride, nd, 1),
		Padding:  spatial(op, "padding", o.Padding, nd, 0),
		Dilation: spatial(op, "dilation", o.Dilation, nd, 1),
	}
	outPad := spatial(op, "output padding", o.OutputPadding, nd, 0)
	g.In = make([]int, nd)
	for i := range nd {
		s, p, d := g.Stride[i], g.Padding[i], g.Dilation[i]
		if s < 1 || d < 1 || p < 0 || outPad[i] < 0 {
			usage(op, "stride %v, dilation %v must be positive, padding %v and output padding %v non-negative", g.Stride, g.Dilation, g.Padding, outPad)
		}
		// PyTorch also accepts outPad < dilation; the device's geometry
		// (floor rule) needs outPad < stride.
		if outPad[i] >= s {
			usage(op, "output padding %v must be smaller than the stride %v", outPad, g.Stride)
		}
		if g.Out[i] < 1 {
			usage(op, "input %v has an empty spatial dimension", x.shape)
		}
		g.In[i] = transposedSize(op, g.Out[i], g.Kernel[i], s, p, d, outPad[i])
	}
	checkExtent(op, append([]int{g.N, g.C}, g.In...))
	return g
}

// transposedSize returns (in-1)·stride - 2·pad + dilation·(kernel-1) +
// outPad + 1, refusing a size that overflows an int or is not positive.
func transposedSize(op string, in, kernel, stride, pad, dilation, outPad int) int {
	span, ok1 := checked.Mul(in-1, stride)
	reach, ok2 := checked.Mul(dilation, kernel-1)
	twoPad, ok3 := checked.Mul(pad, 2)
	total, ok4 := checked.Add(span, reach)
	total, ok5 := checked.Add(total, outPad+1)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || total-twoPad < 1 {
		usage(op, "input size %d with kernel %d, stride %d, padding %d, dilation %d, output padding %d gives no output or an overflow",
			in, kernel, stride, pad, dilation, outPad)
	}
	return total - twoPad
}
