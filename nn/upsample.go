package nn

import "github.com/shaderflow/shaderflow/tensor"

// Upsample is torch.nn.Upsample: it resamples [N, C, spatial...] (1 to 3
// spatial dimensions) by tensor.Interpolate with Options (an output size or
// scale factors, nearest or linear mode, align corners).
type Upsample struct {
	stateless
	Options tensor.InterpolateOptions
}

// NewUpsample returns an Upsample layer with the given options.
func NewUpsample(o tensor.InterpolateOptions) *Upsample { return &Upsample{Options: o} }

// Forward resamples x.
func (u *Upsample) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Interpolate(u.Options) }
