package nn

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor"
)

// BatchNorm is torch.nn.BatchNorm1d or BatchNorm2d over the channel
// dimension 1 of [N, C] and [N, C, L] (1d) or [N, C, H, W] (2d). Its
// parameters are "weight" and "bias" [C] (unless NoAffine); its buffers
// "running_mean", "running_var" [C] and "num_batches_tracked" (a one-element
// Int32 scalar).
//
// In training it normalizes with the batch statistics and updates the
// running averages, computing them at once (see the package documentation);
// in evaluation it normalizes with the running averages.
type BatchNorm struct {
	Weight, Bias      *tensor.Tensor // nil with NoAffine
	RunningMean       *tensor.Tensor
	RunningVar        *tensor.Tensor
	NumBatchesTracked *tensor.Tensor
	C                 int
	Eps, Momentum     float64
	ranks             []int
	name              string
	training          bool
}

// NewBatchNorm1d returns BatchNorm over [N, C] or [N, C, L]. Options: Eps,
// Momentum, NoAffine.
func NewBatchNorm1d(dev *tensor.Device, c int, opts ...Option) *BatchNorm {
	return newBatchNorm(dev, "BatchNorm1d", c, []int{2, 3}, opts)
}

// NewBatchNorm2d returns BatchNorm over [N, C, H, W]. Options: Eps,
// Momentum, NoAffine.
func NewBatchNorm2d(dev *tensor.Device, c int, opts ...Option) *BatchNorm {
	return newBatchNorm(dev, "BatchNorm2d", c, []int{4}, opts)
}

func newBatchNorm(dev *tensor.Device, name string, c int, ranks []int, opts []Option) *BatchNorm {
	cfg := configure(name, optEps|optMomentum|optNoAffine, opts)
	if c < 1 {
		usage(name, "%d channels", c)
	}
	b := &BatchNorm{
		C: c, Eps: cfg.eps, Momentum: cfg.momentum, ranks: ranks, name: name, training: true,
		RunningMean:       filled(dev, 0, c),
		RunningVar:        filled(dev, 1, c),
		NumBatchesTracked: tensor.FromInt32s(dev, []int32{0}).Reshape(),
	}
	if !cfg.noAffine {
		b.Weight, b.Bias = affineParams(dev, c)
	}
	return b
}

// affineParams returns a normalization layer's weight (ones) and bias
// (zeros) of n values.
func affineParams(dev *tensor.Device, n ...int) (w, b *tensor.Tensor) {
	return filled(dev, 1, n...).SetRequiresGrad(true), filled(dev, 0, n...).SetRequiresGrad(true)
}

// filled returns a Float32 tensor of shape holding v, in device memory.
func filled(dev *tensor.Device, v float32, shape ...int) *tensor.Tensor {
	n := 1
	for _, s := range shape {
		n *= s
	}
	data := make([]float32, n)
	for i := range data {
		data[i] = v
	}
	return tensor.FromFloat32s(dev, data, shape...)
}

// Forward normalizes x.
func (b *BatchNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	checkRank(b.name, x, b.ranks...)
	if x.Size(1) != b.C {
		usage(b.name, "input %v has %d channels, layer has %d", x.Shape(), x.Size(1), b.C)
	}
	y := x.BatchNorm(b.RunningMean, b.RunningVar, b.Weight, b.Bias, b.training, b.Momentum, b.Eps)
	if b.training {
		b.NumBatchesTracked.Assign(b.NumBatchesTracked.AddScalar(1))
		// Errors stay with the tensors and surface when they are next read.
		_ = tensor.Realize(b.RunningMean, b.RunningVar, b.NumBatchesTracked)
	}
	return y
}

// NamedParameters returns "weight" and "bias" unless NoAffine.
func (b *BatchNorm) NamedParameters() []Named { return affineNamed(b.Weight, b.Bias) }

// NamedBuffers returns "running_mean", "running_var" and
// "num_batches_tracked".
func (b *BatchNorm) NamedBuffers() []Named {
	return []Named{{"running_mean", b.RunningMean}, {"running_var", b.RunningVar}, {"num_batches_tracked", b.NumBatchesTracked}}
}

// Train selects batch statistics (training) or running averages
// (evaluation).
func (b *BatchNorm) Train(on bool) { b.training = on }

// affineNamed names a normalization layer's optional weight and bias.
func affineNamed(w, b *tensor.Tensor) []Named {
	if w == nil {
		return nil
	}
	return weightAndBias(w, b)
}

// LayerNorm is torch.nn.LayerNorm: it normalizes over the trailing
// dimensions Shape, then scales by "weight" and adds "bias" (each of Shape,
// unless NoAffine).
type LayerNorm struct {
	paramsOnly
	Weight, Bias *tensor.Tensor
	Shape        []int
	Eps          float64
}

// NewLayerNorm returns LayerNorm over trailing dimensions of the given
// shape. Options: Eps, NoAffine.
func NewLayerNorm(dev *tensor.Device, shape []int, opts ...Option) *LayerNorm {
	c := configure("LayerNorm", optEps|optNoAffine, opts)
	if len(shape) == 0 {
		usage("LayerNorm", "empty normalized shape")
	}
	for _, s := range shape {
		if s < 1 {
			usage("LayerNorm", "normalized shape %v must be positive", shape)
		}
	}
	l := &LayerNorm{Shape: slices.Clone(shape), Eps: c.eps}
	if !c.noAffine {
		l.Weight, l.Bias = affineParams(dev, shape...)
	}
	return l
}

// Forward normalizes x, whose trailing dimensions must equal Shape.
func (l *LayerNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	n := len(l.Shape)
	if x.Dim() < n || !slices.Equal(x.Shape()[x.Dim()-n:], l.Shape) {
		usage("LayerNorm", "input %v must end in %v", x.Shape(), l.Shape)
	}
	return x.LayerNorm(n, l.Weight, l.Bias, l.Eps)
}

// NamedParameters returns "weight" and "bias" unless NoAffine.
func (l *LayerNorm) NamedParameters() []Named { return affineNamed(l.Weight, l.Bias) }

// GroupNorm is torch.nn.GroupNorm: it normalizes [N, C, ...] over groups of
// C/Groups channels and all positions, then applies the per-channel "weight"
// and "bias" [C] (unless NoAffine).
type GroupNorm struct {
	paramsOnly
	Weight, Bias *tensor.Tensor
	Groups, C    int
	Eps          float64
}

// NewGroupNorm returns GroupNorm of c channels in groups groups. Options:
// Eps, NoAffine.
func NewGroupNorm(dev *tensor.Device, groups, c int, opts ...Option) *GroupNorm {
	cfg := configure("GroupNorm", optEps|optNoAffine, opts)
	if groups < 1 || c < 1 || c%groups != 0 {
		usage("GroupNorm", "%d channels in %d groups (groups must divide channels)", c, groups)
	}
	g := &GroupNorm{Groups: groups, C: c, Eps: cfg.eps}
	if !cfg.noAffine {
		g.Weight, g.Bias = affineParams(dev, c)
	}
	return g
}

// Forward normalizes x [N, C, ...].
func (g *GroupNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	if x.Dim() < 2 || x.Size(1) != g.C {
		usage("GroupNorm", "input %v must be [N, %d, ...]", x.Shape(), g.C)
	}
	return x.GroupNorm(g.Groups, g.Weight, g.Bias, g.Eps)
}

// NamedParameters returns "weight" and "bias" unless NoAffine.
func (g *GroupNorm) NamedParameters() []Named { return affineNamed(g.Weight, g.Bias) }
