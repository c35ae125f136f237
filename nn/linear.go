package nn

import (
	"github.com/shaderflow/shaderflow/tensor"
)

// Linear is torch.nn.Linear: y = x @ weightᵀ + bias over the last dimension
// of x. Its state is "weight" [out, in] and "bias" [out].
type Linear struct {
	paramsOnly
	Weight *tensor.Tensor
	Bias   *tensor.Tensor // nil with NoBias
	In     int
	Out    int
}

// NewLinear returns a Linear layer from in to out features, initialized as
// PyTorch does (weight and bias uniform in ±1/sqrt(in)). Options:
// WithGenerator, NoBias.
func NewLinear(dev *tensor.Device, in, out int, opts ...Option) *Linear {
	c := configure("Linear", optGenerator|optNoBias, opts)
	if in < 0 || out < 0 {
		usage("Linear", "negative size: in %d, out %d", in, out)
	}
	l := &Linear{In: in, Out: out, Weight: newParameter("Linear", defaultWeight(dev, c.gen, out, in))}
	if !c.noBias {
		l.Bias = newParameter("Linear", defaultBias(dev, c.gen, in, out))
	}
	return l
}

// Forward maps x [..., in] to [..., out].
func (l *Linear) Forward(x *tensor.Tensor) *tensor.Tensor { return l.addBias(l.product(x)) }

// product returns x @ Weightᵀ.
func (l *Linear) product(x *tensor.Tensor) *tensor.Tensor {
	if x.Dim() == 0 || x.Size(-1) != l.In {
		usage("Linear", "input %v must end in %d features", x.Shape(), l.In)
	}
	return x.MatMul(l.Weight.T())
}

// addBias returns y + Bias, or y without a bias.
func (l *Linear) addBias(y *tensor.Tensor) *tensor.Tensor {
	if l.Bias != nil {
		y = y.Add(l.Bias)
	}
	return y
}

// NamedParameters returns "weight" and, unless NoBias, "bias".
func (l *Linear) NamedParameters() []Named { return weightAndBias(l.Weight, l.Bias) }
