package nn

import (
	"github.com/shaderflow/shaderflow/tensor"
)

// Dropout is torch.nn.Dropout: in training it zeroes each element with
// probability P and scales the rest by 1/(1-P); in evaluation it is the
// identity. The mask is drawn from the device's random stream (or from a
// generator given WithGenerator) by a random node that fuses into the kernel
// that applies it, so the mask never occupies memory.
type Dropout struct {
	P        float64
	gen      *tensor.Generator
	training bool
}

// NewDropout returns Dropout with drop probability p in [0, 1]. Options:
// WithGenerator.
func NewDropout(p float64, opts ...Option) *Dropout {
	c := configure("Dropout", optGenerator, opts)
	if !(p >= 0 && p <= 1) {
		usage("Dropout", "probability %g outside [0, 1]", p)
	}
	return &Dropout{P: p, gen: c.gen, training: true}
}

// active reports whether Forward changes its input: in training, with P
// above 0.
func (d *Dropout) active() bool { return d.training && d.P != 0 }

// Forward applies the mask in training mode and returns x otherwise.
func (d *Dropout) Forward(x *tensor.Tensor) *tensor.Tensor {
	if !d.active() {
		return x
	}
	if d.P == 1 {
		return x.MulScalar(0)
	}
	var u *tensor.Tensor
	if d.gen != nil {
		u = d.gen.Rand(x.Device(), x.Shape()...)
	} else {
		u = tensor.Rand(x.Device(), x.Shape()...)
	}
	return tensor.Where(u.LtScalar(d.P), tensor.ZerosLike(x), x.MulScalar(1/(1-d.P)))
}

// NamedParameters returns nil: Dropout has no parameters.
func (d *Dropout) NamedParameters() []Named { return nil }

// NamedBuffers returns nil: Dropout has no buffers.
func (d *Dropout) NamedBuffers() []Named { return nil }

// Train switches the mask on (training) or off (evaluation).
func (d *Dropout) Train(on bool) { d.training = on }
