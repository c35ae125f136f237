package nn

import (
	"github.com/shaderflow/shaderflow/tensor"
)

// TransformerEncoderConfig are the sizes and choices of a
// TransformerEncoderLayer, as torch.nn.TransformerEncoderLayer's arguments.
type TransformerEncoderConfig struct {
	Model, Heads int // d_model and nhead
	// FeedForward is dim_feedforward; 0 means PyTorch's 2048.
	FeedForward int
	// Dropout is the probability of every dropout in the layer; 0 means
	// none (PyTorch's default is 0.1).
	Dropout float64
	// GELU selects the exact GELU instead of ReLU as the activation.
	GELU bool
	// Eps is layer_norm_eps; 0 means 1e-5.
	Eps float64
	// BatchFirst says inputs are [N, L, E] rather than [L, N, E].
	BatchFirst bool
	// NormFirst normalizes before each block (pre-norm, GPT-2's order)
	// rather than after each residual sum.
	NormFirst bool
}

// TransformerEncoderLayer is torch.nn.TransformerEncoderLayer: self-attention
// and a two-layer feed-forward block, each with dropout and a residual
// connection, normalized after the sum (post-norm) or, with NormFirst, before
// the block. Its state is "self_attn.*", "linear1.*", "linear2.*", "norm1.*"
// and "norm2.*", as PyTorch's.
type TransformerEncoderLayer struct {
	SelfAttn           *MultiheadAttention
	Linear1, Linear2   *Linear
	Norm1, Norm2       *LayerNorm
	Activation         *Activation
	Drop, Drop1, Drop2 *Dropout // after the activation, the attention block and the feed-forward block
	NormFirst          bool
}

// NewTransformerEncoderLayer returns a layer initialized as PyTorch's (its
// modules' own initializations). Options: WithGenerator.
func NewTransformerEncoderLayer(dev *tensor.Device, cfg TransformerEncoderConfig, opts ...Option) *TransformerEncoderLayer {
	configure("TransformerEncoderLayer", optGenerator, opts)
	if cfg.FeedForward == 0 {
		cfg.FeedForward = 2048
	}
	if cfg.Eps == 0 {
		cfg.Eps = 1e-5
	}
	if cfg.FeedForward < 1 {
		usage("TransformerEncoderLayer", "feed-forward size %d must be positive", cfg.FeedForward)
	}
	l := &TransformerEncoderLayer{
		SelfAttn:   NewMultiheadAttention(dev, cfg.Model, cfg.Heads, opts...),
		Linear1:    NewLinear(dev, cfg.Model, cfg.FeedForward, opts...),
		Linear2:    NewLinear(dev, cfg.FeedForward, cfg.Model, opts...),
		Norm1:      NewLayerNorm(dev, []int{cfg.Model}, Eps(cfg.Eps)),
		Norm2:      NewLayerNorm(dev, []int{cfg.Model}, Eps(cfg.Eps)),
		Activation: NewReLU(),
		Drop:       NewDropout(cfg.Dropout, opts...),
		Drop1:      NewDropout(cfg.Dropout, opts...),
		Drop2:      NewDropout(cfg.Dropout, opts...),
		NormFirst:  cfg.NormFirst,
	}
	if cfg.GELU {
		l.Activation = NewGELU(false)
	}
	l.SelfAttn.Dropout = cfg.Dropout
	l.SelfAttn.BatchFirst = cfg.BatchFirst
	return l
}

// Forward encodes x with no mask.
func (l *TransformerEncoderLayer) Forward(x *tensor.Tensor) *tensor.Tensor {
	return l.Encode(x, AttendOptions{})
}

// Encode encodes x ([L, N, E], [N, L, E] with BatchFirst, or [L, E]) with
// the masks of o (src_key_padding_mask is o.KeyPaddingMask, src_mask
// o.AttnMask; o.Causal applies the causal triangle); weights are not
// returned.
func (l *TransformerEncoderLayer) Encode(x *tensor.Tensor, o AttendOptions) *tensor.Tensor {
	o.NeedWeights = false
	attend := func(x *tensor.Tensor) *tensor.Tensor {
		y, _ := l.SelfAttn.Attend(x, x, x, o)
		return l.Drop1.Forward(y)
	}
	ff := func(x *tensor.Tensor) *tensor.Tensor {
		p := l.Linear1.product(x)
		if p.RequiresGrad() {
			// The activation's gradient reads the pre-activation again: the
			// product is stored, and each reader adds the bias itself, so
			// neither the product is recomputed there nor the biased sum
			// stored a second time.
			p = p.Materialize()
		}
		h := l.Linear1.addBias(p)
		return l.Drop2.Forward(l.Linear2.Forward(l.Drop.Forward(l.Activation.Forward(h))))
	}
	if l.NormFirst {
		// The residual sums are stored (Materialize): read lazily, the sum
		// of a stack's layer n would be recomputed, n+1 terms deep, inside
		// every kernel that reads it (the next LayerNorm, sum and their
		// gradients).
		x = x.Add(attend(l.Norm1.Forward(x))).Materialize()
		return x.Add(ff(l.Norm2.Forward(x))).Materialize()
	}
	x = l.Norm1.Forward(x.Add(attend(x)))
	return l.Norm2.Forward(x.Add(ff(x)))
}

// children lists the layer's modules with their state_dict names.
func (l *TransformerEncoderLayer) children() []struct {
	name string
	m    Module
} {
	return []struct {
		name string
		m    Module
	}{{"self_attn", l.SelfAttn}, {"linear1", l.Linear1}, {"linear2", l.Linear2}, {"norm1", l.Norm1}, {"norm2", l.Norm2}}
}

// NamedParameters returns the children's parameters in PyTorch's order.
func (l *TransformerEncoderLayer) NamedParameters() []Named {
	var ps []Named
	for _, c := range l.children() {
		ps = append(ps, Prefixed(c.name, c.m.NamedParameters())...)
	}
	return ps
}

// NamedBuffers returns nil: the layer has no buffers.
func (l *TransformerEncoderLayer) NamedBuffers() []Named { return nil }

// Train switches every dropout on or off.
func (l *TransformerEncoderLayer) Train(on bool) {
	l.SelfAttn.Train(on)
	for _, d := range []*Dropout{l.Drop, l.Drop1, l.Drop2} {
		d.Train(on)
	}
}
