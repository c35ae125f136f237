package nn

import (
	"github.com/shaderflow/shaderflow/tensor"
)

// MaxPool2d is torch.nn.MaxPool2d over [N, C, H, W].
type MaxPool2d struct {
	stateless
	Options tensor.PoolOptions
}

// NewMaxPool2d returns max pooling over kernel × kernel windows with stride
// kernel. Options: Stride, Padding, Dilation, KernelSize.
func NewMaxPool2d(kernel int, opts ...Option) *MaxPool2d {
	return &MaxPool2d{Options: poolOptions("MaxPool2d", kernel, optDilation, opts)}
}

// Forward pools x [N, C, H, W].
func (p *MaxPool2d) Forward(x *tensor.Tensor) *tensor.Tensor {
	checkRank("MaxPool2d", x, 4)
	return x.MaxPool2d(p.Options)
}

// AvgPool2d is torch.nn.AvgPool2d over [N, C, H, W] (padded positions count
// in the divisor, PyTorch's default).
type AvgPool2d struct {
	stateless
	Options tensor.PoolOptions
}

// NewAvgPool2d returns average pooling over kernel × kernel windows with
// stride kernel. Options: Stride, Padding, KernelSize.
func NewAvgPool2d(kernel int, opts ...Option) *AvgPool2d {
	return &AvgPool2d{Options: poolOptions("AvgPool2d", kernel, 0, opts)}
}

// Forward pools x [N, C, H, W].
func (p *AvgPool2d) Forward(x *tensor.Tensor) *tensor.Tensor {
	checkRank("AvgPool2d", x, 4)
	return x.AvgPool2d(p.Options)
}

// poolOptions builds the window of a pooling layer.
func poolOptions(op string, kernel int, extra optionBit, opts []Option) tensor.PoolOptions {
	c := configure(op, optStride|optPadding|optKernel|extra, opts)
	k := c.kernel
	if len(k) == 0 {
		k = []int{kernel}
	}
	for _, v := range k {
		if v < 1 {
			usage(op, "kernel size %v must be positive", k)
		}
	}
	return tensor.PoolOptions{Kernel: k, Stride: c.stride, Padding: c.padding, Dilation: c.dilation}
}

// AdaptiveAvgPool2d is torch.nn.AdaptiveAvgPool2d: it averages [N, C, H, W]
// over the windows that divide it into H × W output cells.
type AdaptiveAvgPool2d struct {
	stateless
	H, W int
}

// NewAdaptiveAvgPool2d returns adaptive average pooling to h × w.
func NewAdaptiveAvgPool2d(h, w int) *AdaptiveAvgPool2d {
	if h < 1 || w < 1 {
		usage("AdaptiveAvgPool2d", "output size %dx%d must be positive", h, w)
	}
	return &AdaptiveAvgPool2d{H: h, W: w}
}

// Forward pools x [N, C, H, W] to [N, C, p.H, p.W].
func (p *AdaptiveAvgPool2d) Forward(x *tensor.Tensor) *tensor.Tensor {
	checkRank("AdaptiveAvgPool2d", x, 4)
	return x.AdaptiveAvgPool2d(p.H, p.W)
}
