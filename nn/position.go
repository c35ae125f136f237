package nn

import (
	"github.com/shaderflow/shaderflow/tensor"
)

// PositionalEmbedding is a table of learned position vectors (GPT-2's
// "wpe"): an Embedding whose row i is added at sequence position i. Its
// state is "weight" [MaxLen, Dim], initialized from N(0, 1) as
// torch.nn.Embedding (GPT-2 uses N(0, 0.02): assign it to Weight).
type PositionalEmbedding struct {
	*Embedding
}

// NewPositionalEmbedding returns maxLen learned positions of dim values.
// Options: WithGenerator.
func NewPositionalEmbedding(dev *tensor.Device, maxLen, dim int, opts ...Option) *PositionalEmbedding {
	return &PositionalEmbedding{NewEmbedding(dev, maxLen, dim, opts...)}
}

// Positions returns the vectors of positions start .. start+length-1,
// [length, Dim], as a view of the table (the gradient flows back into it).
func (p *PositionalEmbedding) Positions(start, length int) *tensor.Tensor {
	if start < 0 || length < 0 || start+length > p.Num {
		usage("PositionalEmbedding", "positions [%d, %d) outside the table of %d", start, start+length, p.Num)
	}
	return p.Weight.Narrow(0, start, length)
}

// Forward adds each position's vector to x [..., L, Dim] (batch first: the
// sequence is the second-to-last dimension).
func (p *PositionalEmbedding) Forward(x *tensor.Tensor) *tensor.Tensor {
	if x.Dim() < 2 || x.Size(-1) != p.Dim {
		usage("PositionalEmbedding", "input %v must be [..., L, %d]", x.Shape(), p.Dim)
	}
	return x.Add(p.Positions(0, x.Size(-2)))
}
