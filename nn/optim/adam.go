package optim

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor"
)

// AdamConfig are the hyperparameters of Adam and AdamW, as in torch.optim.
// Zero Beta1, Beta2 and Eps mean PyTorch's defaults (0.9, 0.999, 1e-8).
type AdamConfig struct {
	LR           float64
	Beta1, Beta2 float64
	Eps          float64
	// WeightDecay is an L2 penalty added to the gradient for Adam and a
	// decoupled decay p *= 1 - lr*WeightDecay for AdamW.
	WeightDecay float64
}

// Adam is torch.optim.Adam (or AdamW, from NewAdamW):
//
//	p = p*(1 - lr*wd) (AdamW) or g = grad + wd*p (Adam)
//	m = β1*m + (1-β1)*g;  v = β2*v + (1-β2)*g²
//	p = p - lr/(1-β1^t) * m / (sqrt(v)/sqrt(1-β2^t) + eps)
type Adam struct {
	params
	cfg       AdamConfig
	decoupled bool
	m, v      []*tensor.Tensor
}

// NewAdam returns Adam over ps.
func NewAdam(ps []*tensor.Tensor, cfg AdamConfig) *Adam { return newAdam("Adam", ps, cfg, false) }

// NewAdamW returns AdamW (decoupled weight decay) over ps.
func NewAdamW(ps []*tensor.Tensor, cfg AdamConfig) *Adam { return newAdam("AdamW", ps, cfg, true) }

func newAdam(op string, ps []*tensor.Tensor, cfg AdamConfig, decoupled bool) *Adam {
	if cfg.Beta1 == 0 && cfg.Beta2 == 0 {
		cfg.Beta1, cfg.Beta2 = 0.9, 0.999
	}
	if cfg.Eps == 0 {
		cfg.Eps = 1e-8
	}
	if !(cfg.Beta1 >= 0 && cfg.Beta1 < 1 && cfg.Beta2 >= 0 && cfg.Beta2 < 1) || cfg.Eps < 0 || cfg.WeightDecay < 0 {
		usage(op, "betas (%g, %g) must be in [0, 1), eps %g and weight decay %g non-negative", cfg.Beta1, cfg.Beta2, cfg.Eps, cfg.WeightDecay)
	}
	return &Adam{params: newParams(op, ps, cfg.LR), cfg: cfg, decoupled: decoupled, m: zerosLike(ps), v: zerosLike(ps)}
}

// Step applies one update to every parameter that has a gradient.
func (o *Adam) Step() error {
	c := o.cfg
	t := float64(o.steps + 1)
	bc1 := 1 - math.Pow(c.Beta1, t)
	sqrtBC2 := math.Sqrt(1 - math.Pow(c.Beta2, t))
	return o.apply(func(i int, p, g *tensor.Tensor) (*tensor.Tensor, []*tensor.Tensor) {
		if c.WeightDecay != 0 {
			if o.decoupled {
				p = p.MulScalar(1 - o.lr*c.WeightDecay)
			} else {
				g = g.Add(p.MulScalar(c.WeightDecay))
			}
		}
		m := o.m[i].MulScalar(c.Beta1).Add(g.MulScalar(1 - c.Beta1))
		v := o.v[i].MulScalar(c.Beta2).Add(g.Mul(g).MulScalar(1 - c.Beta2))
		denom := v.Sqrt().MulScalar(1 / sqrtBC2).AddScalar(c.Eps)
		return p.Sub(m.Div(denom).MulScalar(o.lr / bc1)), []*tensor.Tensor{m, v}
	}, func(i int) []*tensor.Tensor { return []*tensor.Tensor{o.m[i], o.v[i]} })
}
