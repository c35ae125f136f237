package nn

import "github.com/shaderflow/shaderflow/tensor"

// InstanceNorm is torch.nn.InstanceNorm1d, 2d or 3d without running
// statistics (track_running_stats=False, PyTorch's default): each channel of
// each sample is normalized over its positions, in training and evaluation
// alike. With affine set its parameters are "weight" and "bias" [C];
// PyTorch's default, as here with affine false, has none.
type InstanceNorm struct {
	paramsOnly
	Weight, Bias *tensor.Tensor // nil without affine
	C            int
	Eps          float64
	rank         int
	name         string
}

// NewInstanceNorm1d returns InstanceNorm over [N, C, L]. Options: Eps.
func NewInstanceNorm1d(dev *tensor.Device, c int, affine bool, opts ...Option) *InstanceNorm {
	return newInstanceNorm(dev, "InstanceNorm1d", 3, c, affine, opts)
}

// NewInstanceNorm2d returns InstanceNorm over [N, C, H, W]. Options: Eps.
func NewInstanceNorm2d(dev *tensor.Device, c int, affine bool, opts ...Option) *InstanceNorm {
	return newInstanceNorm(dev, "InstanceNorm2d", 4, c, affine, opts)
}

// NewInstanceNorm3d returns InstanceNorm over [N, C, D, H, W]. Options: Eps.
func NewInstanceNorm3d(dev *tensor.Device, c int, affine bool, opts ...Option) *InstanceNorm {
	return newInstanceNorm(dev, "InstanceNorm3d", 5, c, affine, opts)
}

func newInstanceNorm(dev *tensor.Device, name string, rank, c int, affine bool, opts []Option) *InstanceNorm {
	cfg := configure(name, optEps, opts)
	if c < 1 {
		usage(name, "%d channels", c)
	}
	n := &InstanceNorm{C: c, Eps: cfg.eps, rank: rank, name: name}
	if affine {
		n.Weight, n.Bias = affineParams(dev, c)
	}
	return n
}

// Forward normalizes x.
func (n *InstanceNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	checkRank(n.name, x, n.rank)
	if x.Size(1) != n.C {
		usage(n.name, "input %v must have %d channels", x.Shape(), n.C)
	}
	return x.InstanceNorm(n.Weight, n.Bias, n.Eps)
}

// NamedParameters returns "weight" and "bias" when affine.
func (n *InstanceNorm) NamedParameters() []Named { return affineNamed(n.Weight, n.Bias) }
