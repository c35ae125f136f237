package tensor

import (
	"math"
	"slices"
)

// LayerNorm normalizes over the last normDims axes to zero mean and unit
// variance (biased), then scales by weight and adds bias (each of the
// normalized shape; nil skips).
func (t *Tensor) LayerNorm(normDims int, weight, bias *Tensor, eps float64) *Tensor {
	t.check("LayerNorm")
	if normDims < 1 || normDims > t.Dim() {
		usage("LayerNorm", "normDims %d for shape %v", normDims, t.shape)
	}
	axes := make([]int, normDims)
	for i := range axes {
		axes[i] = t.Dim() - normDims + i
	}
	y := t.normalize(axes, eps)
	return y.affine("LayerNorm", weight, bias, t.shape[t.Dim()-normDims:], func(p *Tensor) *Tensor { return p })
}

// normalize returns (t - mean) / sqrt(var + eps) over axes, with the biased
// variance.
func (t *Tensor) normalize(axes []int, eps float64) *Tensor {
	x := t.asFloat32()
	if len(axes) == 1 && axes[0] == x.Dim()-1 && eps >= 0 && !math.IsInf(eps, 1) {
		if y := rowNormalize(x.Detach(), eps); y != nil {
			return recordGrad(opNormalize, y, []*Tensor{x}, eps)
		}
	}
	d := x.Sub(x.MeanKeepDim(axes...))
	v := d.Mul(d).MeanKeepDim(axes...)
	return d.Mul(v.AddScalar(eps).Rsqrt())
}

// normalizeGrad is the gradient of normalize's input x along the last axis
// for the output gradient g: rstd·(g − mean(g) − x̂·mean(g·x̂)), by the
// device's row kernel or, where it has none, composed.
func normalizeGrad(x, g *Tensor, eps float64) *Tensor {
	g = g.asFloat32()
	if dx := rowNormalizeGrad(x, g, eps); dx != nil {
		return dx
	}
	d := x.Sub(x.MeanKeepDim(-1))
	rstd := d.Mul(d).MeanKeepDim(-1).AddScalar(eps).Rsqrt()
	xh := d.Mul(rstd)
	return g.Sub(g.MeanKeepDim(-1)).Sub(xh.Mul(g.Mul(xh).MeanKeepDim(-1))).Mul(rstd)
}

// affine multiplies by weight and adds bias, both of shape want, reshaped by
// shapeFor to broadcast against y.
func (y *Tensor) affine(op string, weight, bias *Tensor, want []int, shapeFor func(*Tensor) *Tensor) *Tensor {
	if weight != nil {
		if !slices.Equal(weight.shape, want) {
			usage(op, "weight %v must be %v", weight.shape, want)
		}
		y = y.Mul(shapeFor(weight))
	}
	if bias != nil {
		if !slices.Equal(bias.shape, want) {
			usage(op, "bias %v must be %v", bias.shape, want)
		}
		y = y.Add(shapeFor(bias))
	}
	return y
}

// channelShape returns a function reshaping a [C] tensor to broadcast over
// dimension 1 of a rank-r tensor.
func channelShape(r int) func(*Tensor) *Tensor {
	return func(p *Tensor) *Tensor {
		shape := make([]int, r)
		for i := range shape {
			shape[i] = 1
		}
		shape[1] = p.shape[0]
		return p.Reshape(shape...)
	}
}

// BatchNorm is torch.nn.functional.batch_norm over [N, C, ...]. In training
// it normalizes with the batch statistics and, when runningMean and
// runningVar are not nil, updates them in place (Assign) with momentum, using
// the unbiased variance; otherwise it normalizes with the running statistics.
func (t *Tensor) BatchNorm(runningMean, runningVar, weight, bias *Tensor, training bool, momentum, eps float64) *Tensor {
	t.check("BatchNorm")
	if t.Dim() < 2 {
		usage("BatchNorm", "needs [N, C, ...], got %v", t.shape)
	}
	c := t.shape[1]
	cs := channelShape(t.Dim())
	for _, s := range []*Tensor{runningMean, runningVar} {
		if s != nil && !slices.Equal(s.shape, []int{c}) {
			usage("BatchNorm", "running statistics %v must be [%d]", s.shape, c)
		}
	}
	var y *Tensor
	if training {
		axes := []int{0}
		n := t.shape[0]
		for i := 2; i < t.Dim(); i++ {
			axes = append(axes, i)
			n *= t.shape[i]
		}
		if n < 2 {
			usage("BatchNorm", "training needs more than one value per channel, got input %v", t.shape)
		}
		x := t.asFloat32()
		mean := x.MeanKeepDim(axes...)
		d := x.Sub(mean)
		v := d.Mul(d).MeanKeepDim(axes...)
		y = d.Mul(v.AddScalar(eps).Rsqrt())
		if runningMean != nil && runningVar != nil {
			// Detached operands record nothing; Assign keeps no history.
			m := mean.Detach().Reshape(c)
			uv := v.Detach().Reshape(c).MulScalar(float64(n) / float64(n-1))
			rm, rv := runningMean.Detach(), runningVar.Detach()
			runningMean.Assign(rm.MulScalar(1 - momentum).Add(m.MulScalar(momentum)))
			runningVar.Assign(rv.MulScalar(1 - momentum).Add(uv.MulScalar(momentum)))
		}
	} else {
		if runningMean == nil || runningVar == nil {
			usage("BatchNorm", "inference needs running statistics")
		}
		y = t.asFloat32().Sub(cs(runningMean)).Mul(cs(runningVar).AddScalar(eps).Rsqrt())
	}
	return y.affine("BatchNorm", weight, bias, []int{c}, cs)
}

// GroupNorm normalizes [N, C, ...] over groups of C/groups channels (and all
// spatial positions), then applies the per-channel weight and bias.
func (t *Tensor) GroupNorm(groups int, weight, bias *Tensor, eps float64) *Tensor {
	t.check("GroupNorm")
	if t.Dim() < 2 || groups < 1 || t.shape[1]%groups != 0 {
		usage("GroupNorm", "%d groups for input %v (channels must divide)", groups, t.shape)
	}
	shape := t.Shape()
	g := t.Reshape(shape[0], groups, -1).normalize([]int{2}, eps).Reshape(shape...)
	return g.affine("GroupNorm", weight, bias, []int{shape[1]}, channelShape(len(shape)))
}
