package nn

import "github.com/shaderflow/shaderflow/tensor"

// ConvTranspose is torch.nn.ConvTranspose1d or ConvTranspose2d: the
// transposed convolution (tensor.ConvTranspose1d/2d) of [N, In, spatial...].
// Its state is "weight" [in, out/groups, k...] and "bias" [out].
type ConvTranspose struct {
	paramsOnly
	Weight  *tensor.Tensor
	Bias    *tensor.Tensor // nil with NoBias
	In, Out int
	Options tensor.ConvTransposeOptions
	dims    int
	name    string
}

// NewConvTranspose1d returns a ConvTranspose1d layer from in to out
// channels with a window of kernel taps, initialized as PyTorch does
// (weight and bias uniform in ±1/sqrt(fan_in), fan_in = out/groups*kernel,
// from the weight's dimension 1 as PyTorch computes it). Options: Stride,
// Padding, OutputPadding, Dilation, Groups, KernelSize, WithGenerator,
// NoBias.
func NewConvTranspose1d(dev *tensor.Device, in, out, kernel int, opts ...Option) *ConvTranspose {
	return newConvTranspose(dev, "ConvTranspose1d", 1, in, out, kernel, opts)
}

// NewConvTranspose2d returns a ConvTranspose2d layer from in to out
// channels with a kernel × kernel window (KernelSize for another shape),
// initialized as PyTorch does. Options as NewConvTranspose1d's.
func NewConvTranspose2d(dev *tensor.Device, in, out, kernel int, opts ...Option) *ConvTranspose {
	return newConvTranspose(dev, "ConvTranspose2d", 2, in, out, kernel, opts)
}

func newConvTranspose(dev *tensor.Device, name string, nd, in, out, kernel int, opts []Option) *ConvTranspose {
	c := configure(name, convOptions|optOutputPadding, opts)
	k := convKernel(name, nd, in, out, kernel, c)
	shape := append([]int{in, out / c.groups}, k...)
	l := &ConvTranspose{
		In: in, Out: out, dims: nd, name: name,
		Options: tensor.ConvTransposeOptions{Stride: c.stride, Padding: c.padding, OutputPadding: c.outPad, Dilation: c.dilation, Groups: c.groups},
		Weight:  newParameter(name, defaultWeight(dev, c.gen, shape...)),
	}
	if !c.noBias {
		fanIn, _ := Fans(shape)
		l.Bias = newParameter(name, defaultBias(dev, c.gen, fanIn, out))
	}
	return l
}

// Forward applies the transposed convolution to x [N, in, spatial...].
func (l *ConvTranspose) Forward(x *tensor.Tensor) *tensor.Tensor {
	if x.Dim() != l.dims+2 || x.Size(1) != l.In {
		usage(l.name, "input %v must be [N, %d, %d spatial dimensions]", x.Shape(), l.In, l.dims)
	}
	if l.dims == 1 {
		return x.ConvTranspose1d(l.Weight, l.Bias, l.Options)
	}
	return x.ConvTranspose2d(l.Weight, l.Bias, l.Options)
}

// NamedParameters returns "weight" and, unless NoBias, "bias".
func (l *ConvTranspose) NamedParameters() []Named { return weightAndBias(l.Weight, l.Bias) }
