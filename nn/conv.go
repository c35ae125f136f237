package nn

import (
	"github.com/shaderflow/shaderflow/tensor"
)

// Conv is torch.nn.Conv1d or Conv2d: a grouped, strided, padded, dilated
// convolution over the trailing spatial dimensions of [N, C, ...]. Its state
// is "weight" [out, in/groups, k...] and "bias" [out].
type Conv struct {
	paramsOnly
	Weight  *tensor.Tensor
	Bias    *tensor.Tensor // nil with NoBias
	In, Out int
	Options tensor.ConvOptions
	dims    int // spatial dimensions: 1 or 2
	name    string
}

// convOptions are the options a convolution accepts.
const convOptions = optGenerator | optNoBias | optStride | optPadding | optDilation | optGroups | optKernel

// NewConv1d returns a Conv1d layer from in to out channels with a window of
// kernel taps, initialized as PyTorch does (weight and bias uniform in
// ±1/sqrt(fan_in), fan_in = in/groups*kernel). Options: Stride, Padding,
// Dilation, Groups, WithGenerator, NoBias.
func NewConv1d(dev *tensor.Device, in, out, kernel int, opts ...Option) *Conv {
	return newConv(dev, "Conv1d", 1, in, out, kernel, opts)
}

// NewConv2d returns a Conv2d layer from in to out channels with a kernel ×
// kernel window (KernelSize(kh, kw) for another shape), initialized as
// PyTorch does. Options: Stride, Padding, Dilation, Groups, KernelSize,
// WithGenerator, NoBias.
func NewConv2d(dev *tensor.Device, in, out, kernel int, opts ...Option) *Conv {
	return newConv(dev, "Conv2d", 2, in, out, kernel, opts)
}

func newConv(dev *tensor.Device, name string, nd, in, out, kernel int, opts []Option) *Conv {
	c := configure(name, convOptions, opts)
	k := convKernel(name, nd, in, out, kernel, c)
	shape := append([]int{out, in / c.groups}, k...)
	l := &Conv{
		In: in, Out: out, dims: nd, name: name,
		Options: tensor.ConvOptions{Stride: c.stride, Padding: c.padding, Dilation: c.dilation, Groups: c.groups},
		Weight:  newParameter(name, defaultWeight(dev, c.gen, shape...)),
	}
	if !c.noBias {
		fanIn, _ := Fans(shape)
		l.Bias = newParameter(name, defaultBias(dev, c.gen, fanIn, out))
	}
	return l
}

// convKernel returns a convolution layer's window (kernel, or the
// KernelSize option, for nd dimensions), refusing sizes and channel counts
// that do not fit groups.
func convKernel(name string, nd, in, out, kernel int, c config) []int {
	k := c.kernel
	if len(k) == 0 {
		k = []int{kernel}
	}
	if len(k) == 1 {
		k = repeat(k[0], nd)
	}
	if len(k) != nd {
		usage(name, "kernel size %v needs %d values", k, nd)
	}
	if in < 1 || out < 1 || c.groups < 1 || in%c.groups != 0 || out%c.groups != 0 {
		usage(name, "in %d and out %d channels must be positive and divisible by groups %d", in, out, c.groups)
	}
	for _, v := range k {
		if v < 1 {
			usage(name, "kernel size %v must be positive", k)
		}
	}
	return k
}

// repeat returns n copies of v.
func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// Forward convolves x [N, in, spatial...].
func (l *Conv) Forward(x *tensor.Tensor) *tensor.Tensor {
	if x.Dim() != l.dims+2 || x.Size(1) != l.In {
		usage(l.name, "input %v must be [N, %d, %d spatial dimensions]", x.Shape(), l.In, l.dims)
	}
	if l.dims == 1 {
		return x.Conv1d(l.Weight, l.Bias, l.Options)
	}
	return x.Conv2d(l.Weight, l.Bias, l.Options)
}

// NamedParameters returns "weight" and, unless NoBias, "bias".
func (l *Conv) NamedParameters() []Named { return weightAndBias(l.Weight, l.Bias) }
