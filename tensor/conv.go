package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/internal/checked"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// ConvOptions are the parameters of a convolution. Stride, Padding and
// Dilation hold one value for every spatial dimension or a single value for
// all; nil means stride 1, padding 0, dilation 1. Groups 0 means 1.
type ConvOptions struct {
	Stride, Padding, Dilation []int
	Groups                    int
}

// convAttrs are the parameters of a conv node.
type convAttrs struct {
	mode device.ConvMode
	geom device.ConvGeometry
}

// spatial expands a per-dimension option to nd values.
func spatial(op, name string, v []int, nd, def int) []int {
	switch len(v) {
	case 0:
		out := make([]int, nd)
		for i := range out {
			out[i] = def
		}
		return out
	case 1:
		out := make([]int, nd)
		for i := range out {
			out[i] = v[0]
		}
		return out
	case nd:
		return slices.Clone(v)
	}
	usage(op, "%s %v: need 1 or %d values", name, v, nd)
	return nil
}

// convGeometry validates x and w and returns the geometry.
func convGeometry(op string, nd int, x, w *Tensor, o ConvOptions) device.ConvGeometry {
	if x.Dim() != nd+2 || w.Dim() != nd+2 {
		usage(op, "input %v and weight %v must both have %d dimensions", x.shape, w.shape, nd+2)
	}
	g := device.ConvGeometry{
		N: x.shape[0], C: x.shape[1], O: w.shape[0], Groups: max(o.Groups, 1),
		In: slices.Clone(x.shape[2:]), Kernel: slices.Clone(w.shape[2:]),
		Stride:   spatial(op, "stride", o.Stride, nd, 1),
		Padding:  spatial(op, "padding", o.Padding, nd, 0),
		Dilation: spatial(op, "dilation", o.Dilation, nd, 1),
	}
	if perGroup, ok := checked.Mul(w.shape[1], g.Groups); !ok || g.C%g.Groups != 0 || g.O%g.Groups != 0 || perGroup != g.C {
		usage(op, "input %v, weight %v and groups %d do not agree (weight must be [out, in/groups, k...])", x.shape, w.shape, g.Groups)
	}
	g.Out = make([]int, nd)
	for i := 0; i < nd; i++ {
		if g.Stride[i] < 1 || g.Dilation[i] < 1 || g.Padding[i] < 0 {
			usage(op, "stride %v, padding %v, dilation %v must be positive (padding non-negative)", g.Stride, g.Padding, g.Dilation)
		}
		var ok bool
		if g.Out[i], ok = convOutSize(g.In[i], g.Kernel[i], g.Stride[i], g.Padding[i], g.Dilation[i]); !ok {
			usage(op, "kernel %v (dilation %v) larger than padded input %v (padding %v)", g.Kernel, g.Dilation, g.In, g.Padding)
		}
	}
	checkExtent(op, append([]int{g.N, g.O}, g.Out...))
	return g
}

// Conv1d convolves [N, C, L] with weight [O, C/groups, K], adding bias [O]
// when not nil.
func (t *Tensor) Conv1d(w, bias *Tensor, o ConvOptions) *Tensor {
	return t.conv(opConv1d, 1, w, bias, o)
}

// Conv2d convolves [N, C, H, W] with weight [O, C/groups, KH, KW], adding
// bias [O] when not nil.
func (t *Tensor) Conv2d(w, bias *Tensor, o ConvOptions) *Tensor {
	return t.conv(opConv2d, 2, w, bias, o)
}

// Conv3d convolves [N, C, D, H, W] with weight [O, C/groups, KD, KH, KW],
// adding bias [O] when not nil.
func (t *Tensor) Conv3d(w, bias *Tensor, o ConvOptions) *Tensor {
	return t.conv(opConv3d, 3, w, bias, o)
}

// conv records the nd-dimensional convolution op of t by w, plus bias.
func (t *Tensor) conv(op gradOp, nd int, w, bias *Tensor, o ConvOptions) *Tensor {
	return t.convLayer(op, device.ConvForward, w, bias, func(name string) device.ConvGeometry {
		return convGeometry(name, nd, t, w, o)
	})
}

// convLayer records the convolution kernel of mode (forward, or the
// transposed convolution) of t by w as the differentiable op, with the
// geometry that geom validates and returns, plus bias.
func (t *Tensor) convLayer(op gradOp, mode device.ConvMode, w, bias *Tensor, geom func(name string) device.ConvGeometry) *Tensor {
	name := op.String()
	t.check(name)
	w.check(name)
	sameDevice(name, t.n.dev, w)
	g := geom(name)
	x, wf := t.asFloat32(), w.asFloat32()
	y := convNode(mode, g, x, wf)
	y = recordGrad(op, y, []*Tensor{x, wf}, convAttrs{mode: mode, geom: g})
	return addChannelBias(name, y, bias)
}

// addChannelBias adds bias [C] (when not nil) along dimension 1 of y
// [N, C, ...].
func addChannelBias(name string, y, bias *Tensor) *Tensor {
	if bias == nil {
		return y
	}
	bias.check(name)
	if bias.Dim() != 1 || bias.shape[0] != y.shape[1] {
		usage(name, "bias %v must be [%d]", bias.shape, y.shape[1])
	}
	return y.Add(channelShape(y.Dim())(bias))
}

// convNode records a convolution of mode over a and b (as Float32) with no
// backward record: the forward's is conv's, and the backward modes need none.
func convNode(mode device.ConvMode, g device.ConvGeometry, a, b *Tensor) *Tensor {
	a, b = a.asFloat32(), b.asFloat32()
	d := a.n.dev
	k := device.ConvKernel{Mode: mode, Geom: g}
	d.mu.Lock()
	n := d.newNode(kindConv, Float32, k.ResultShape(), []src{{n: a.n, v: a.view()}, {n: b.n, v: b.view()}})
	n.attrs = convAttrs{mode: mode, geom: g}
	res := whole(n)
	d.mu.Unlock()
	return res
}

// runConv launches a convolution with ep as its epilogue (nil for none).
func (d *Device) runConv(n *node, ep *epilogue) error {
	a := n.attrs.(convAttrs)
	p, err := d.prepareProduct(n, ep)
	if err != nil {
		return err
	}
	k := device.ConvKernel{Mode: a.mode, Geom: a.geom, A: p.a, B: p.b, EpilogueInputs: p.ep.inputs, Epilogue: p.ep.prog, Outputs: []device.View{p.out}}
	err = d.launch("conv", "conv", kernelOps("conv", p.ep.ops), 2+len(p.ep.inputs), 1, func() error { return d.raw.Conv(&k) })
	return d.finishEpilogue(p.ep, p.blk, err)
}
