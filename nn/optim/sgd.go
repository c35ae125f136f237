package optim

import (
	"github.com/shaderflow/shaderflow/tensor"
)

// SGDConfig are the hyperparameters of SGD, as in torch.optim.SGD.
type SGDConfig struct {
	LR          float64
	Momentum    float64 // 0 for plain SGD
	Dampening   float64 // scales the gradient's contribution to the momentum buffer by 1-Dampening
	WeightDecay float64 // L2 penalty: the gradient gains WeightDecay*p
	Nesterov    bool    // Nesterov momentum (needs Momentum > 0 and Dampening = 0)
}

// SGD is stochastic gradient descent with optional momentum, Nesterov
// momentum and weight decay, following torch.optim.SGD:
//
//	g = grad + wd*p
//	buf = g on the first step, else momentum*buf + (1-dampening)*g
//	g = g + momentum*buf (Nesterov) or buf
//	p = p - lr*g
type SGD struct {
	params
	cfg SGDConfig
	buf []*tensor.Tensor // momentum buffers, nil without momentum
}

// NewSGD returns SGD over ps. It panics on a negative learning rate,
// momentum or weight decay, or Nesterov without momentum or with dampening.
func NewSGD(ps []*tensor.Tensor, cfg SGDConfig) *SGD {
	o := &SGD{params: newParams("SGD", ps, cfg.LR), cfg: cfg}
	if cfg.Momentum < 0 || cfg.WeightDecay < 0 {
		usage("SGD", "momentum %g and weight decay %g must be non-negative", cfg.Momentum, cfg.WeightDecay)
	}
	if cfg.Nesterov && (cfg.Momentum <= 0 || cfg.Dampening != 0) {
		usage("SGD", "Nesterov momentum needs momentum > 0 and zero dampening (have %g, %g)", cfg.Momentum, cfg.Dampening)
	}
	if cfg.Momentum > 0 {
		o.buf = zerosLike(ps)
	}
	return o
}

// Step applies one update to every parameter that has a gradient.
func (o *SGD) Step() error {
	c := o.cfg
	first := o.steps == 0
	return o.apply(func(i int, p, g *tensor.Tensor) (*tensor.Tensor, []*tensor.Tensor) {
		if c.WeightDecay != 0 {
			g = g.Add(p.MulScalar(c.WeightDecay))
		}
		if c.Momentum == 0 {
			return p.Sub(g.MulScalar(o.lr)), nil
		}
		buf := g
		if !first {
			buf = o.buf[i].MulScalar(c.Momentum).Add(g.MulScalar(1 - c.Dampening))
		}
		d := buf
		if c.Nesterov {
			d = g.Add(buf.MulScalar(c.Momentum))
		}
		return p.Sub(d.MulScalar(o.lr)), []*tensor.Tensor{buf}
	}, o.state)
}

// state returns parameter i's momentum buffer, if any.
func (o *SGD) state(i int) []*tensor.Tensor {
	if o.buf == nil {
		return nil
	}
	return []*tensor.Tensor{o.buf[i]}
}
