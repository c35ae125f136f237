package nn

import (
	"strconv"

	"github.com/shaderflow/shaderflow/tensor"
)

// Sequential is torch.nn.Sequential: it applies its layers in order. The
// state of layer i is named "i.<name>", as in PyTorch.
type Sequential struct {
	Layers []Module
}

// NewSequential returns the composition of layers, first to last.
func NewSequential(layers ...Module) *Sequential {
	for i, l := range layers {
		if l == nil {
			usage("Sequential", "layer %d is nil", i)
		}
	}
	return &Sequential{Layers: layers}
}

// Forward applies every layer in turn.
func (s *Sequential) Forward(x *tensor.Tensor) *tensor.Tensor {
	for _, l := range s.Layers {
		x = l.Forward(x)
	}
	return x
}

// NamedParameters returns the layers' parameters prefixed by their index.
func (s *Sequential) NamedParameters() []Named {
	return s.collect(Module.NamedParameters)
}

// NamedBuffers returns the layers' buffers prefixed by their index.
func (s *Sequential) NamedBuffers() []Named { return s.collect(Module.NamedBuffers) }

func (s *Sequential) collect(f func(Module) []Named) []Named {
	var out []Named
	for i, l := range s.Layers {
		out = append(out, Prefixed(strconv.Itoa(i), f(l))...)
	}
	return out
}

// Train sets the mode of every layer.
func (s *Sequential) Train(on bool) {
	for _, l := range s.Layers {
		l.Train(on)
	}
}
