package nn

import "github.com/shaderflow/shaderflow/tensor"

// Pool is torch.nn.MaxPool1d, MaxPool3d, AvgPool1d or AvgPool3d: windowed
// pooling over the 1 or 3 spatial dimensions of [N, C, ...]. Set
// Options.CeilMode for PyTorch's ceil_mode and, for averages,
// Options.CountExcludePad for count_include_pad=False.
type Pool struct {
	stateless
	Options tensor.PoolOptions
	name    string
	rank    int
	pool    func(*tensor.Tensor, tensor.PoolOptions) *tensor.Tensor
}

// NewMaxPool1d returns max pooling over windows of kernel taps of [N, C, L]
// with stride kernel. Options: Stride, Padding, Dilation, KernelSize.
func NewMaxPool1d(kernel int, opts ...Option) *Pool {
	return newPool("MaxPool1d", 3, (*tensor.Tensor).MaxPool1d, kernel, optDilation, opts)
}

// NewMaxPool3d returns max pooling over kernel³ windows of [N, C, D, H, W]
// with stride kernel. Options: Stride, Padding, Dilation, KernelSize.
func NewMaxPool3d(kernel int, opts ...Option) *Pool {
	return newPool("MaxPool3d", 5, (*tensor.Tensor).MaxPool3d, kernel, optDilation, opts)
}

// NewAvgPool1d returns average pooling over windows of kernel taps of
// [N, C, L] with stride kernel. Options: Stride, Padding, KernelSize.
func NewAvgPool1d(kernel int, opts ...Option) *Pool {
	return newPool("AvgPool1d", 3, (*tensor.Tensor).AvgPool1d, kernel, 0, opts)
}

// NewAvgPool3d returns average pooling over kernel³ windows of
// [N, C, D, H, W] with stride kernel. Options: Stride, Padding, KernelSize.
func NewAvgPool3d(kernel int, opts ...Option) *Pool {
	return newPool("AvgPool3d", 5, (*tensor.Tensor).AvgPool3d, kernel, 0, opts)
}

func newPool(name string, rank int, pool func(*tensor.Tensor, tensor.PoolOptions) *tensor.Tensor, kernel int, extra optionBit, opts []Option) *Pool {
	return &Pool{Options: poolOptions(name, kernel, extra, opts), name: name, rank: rank, pool: pool}
}

// Forward pools x.
func (p *Pool) Forward(x *tensor.Tensor) *tensor.Tensor {
	checkRank(p.name, x, p.rank)
	return p.pool(x, p.Options)
}
