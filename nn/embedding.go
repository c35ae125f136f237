package nn

import (
	"github.com/shaderflow/shaderflow/tensor"
)

// Embedding is torch.nn.Embedding: a lookup table of Num vectors of Dim
// values. Its state is "weight" [Num, Dim], initialized from N(0, 1) as in
// PyTorch.
type Embedding struct {
	paramsOnly
	Weight   *tensor.Tensor
	Num, Dim int
}

// NewEmbedding returns a table of num vectors of dim values. Options:
// WithGenerator.
func NewEmbedding(dev *tensor.Device, num, dim int, opts ...Option) *Embedding {
	c := configure("Embedding", optGenerator, opts)
	if num < 1 || dim < 1 {
		usage("Embedding", "table size %dx%d must be positive", num, dim)
	}
	w := newParameter("Embedding", Normal(dev, c.gen, 0, 1, num, dim))
	return &Embedding{Weight: w, Num: num, Dim: dim}
}

// Forward looks up Int32 indices of any shape and returns their vectors,
// of shape indices.Shape() ++ [Dim]. An index outside [0, Num) is an error
// when the result is read. The gradient scatters back into the table.
func (e *Embedding) Forward(indices *tensor.Tensor) *tensor.Tensor {
	if indices.DType() != tensor.Int32 {
		usage("Embedding", "indices must be Int32, got %s %v", indices.DType(), indices.Shape())
	}
	flat := indices.Reshape(-1)
	return e.Weight.IndexSelect(0, flat).Reshape(append(indices.Shape(), e.Dim)...)
}

// NamedParameters returns "weight".
func (e *Embedding) NamedParameters() []Named { return []Named{{"weight", e.Weight}} }
