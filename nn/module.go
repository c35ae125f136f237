package nn

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor"
)

// Module is a layer or a model: a function of one tensor with named state.
//
// NamedParameters returns the trainable tensors (leaves that require
// gradients) and NamedBuffers the saved but untrained ones, children
// included, with the hierarchical names of PyTorch's state_dict ("weight",
// "1.bias", "features.0.running_mean"). Train switches training behaviour
// (Dropout, BatchNorm) on or off for the module and its children; modules
// start in training mode.
type Module interface {
	Forward(x *tensor.Tensor) *tensor.Tensor
	NamedParameters() []Named
	NamedBuffers() []Named
	Train(on bool)
}

// Named is a tensor with its state_dict name.
type Named struct {
	Name   string
	Tensor *tensor.Tensor
}

// Parameters returns m's trainable tensors in NamedParameters order: what
// an optimizer updates.
func Parameters(m Module) []*tensor.Tensor {
	ps := m.NamedParameters()
	out := make([]*tensor.Tensor, len(ps))
	for i, p := range ps {
		out[i] = p.Tensor
	}
	return out
}

// StateDict returns m's parameters followed by its buffers: everything a
// checkpoint holds.
func StateDict(m Module) []Named {
	return append(m.NamedParameters(), m.NamedBuffers()...)
}

// NumParameters returns the number of trainable scalars in m.
func NumParameters(m Module) int {
	n := 0
	for _, p := range m.NamedParameters() {
		n += p.Tensor.NumElements()
	}
	return n
}

// Eval switches m to evaluation mode; it is m.Train(false).
func Eval(m Module) { m.Train(false) }

// Prefixed returns ns with each name prefixed by prefix and a dot: how a
// container names the state of a child.
func Prefixed(prefix string, ns []Named) []Named {
	out := make([]Named, len(ns))
	for i, n := range ns {
		out[i] = Named{Name: prefix + "." + n.Name, Tensor: n.Tensor}
	}
	return out
}

// RealizeState computes every parameter and buffer of m now, so that no
// pending update stays in the lazy graph; it returns the first device error.
func RealizeState(m Module) error {
	for _, n := range StateDict(m) {
		if err := n.Tensor.Realize(); err != nil {
			return fmt.Errorf("nn: %s: %w", n.Name, err)
		}
	}
	return nil
}

// stateless is embedded by modules without parameters, buffers or a
// training mode.
type stateless struct{}

// NamedParameters returns nil: the module has no parameters.
func (stateless) NamedParameters() []Named { return nil }

// NamedBuffers returns nil: the module has no buffers.
func (stateless) NamedBuffers() []Named { return nil }

// Train does nothing: the module behaves the same in both modes.
func (stateless) Train(bool) {}

// paramsOnly is embedded by modules with parameters but no buffers and no
// training mode.
type paramsOnly struct{}

// NamedBuffers returns nil: the module has no buffers.
func (paramsOnly) NamedBuffers() []Named { return nil }

// Train does nothing: the module behaves the same in both modes.
func (paramsOnly) Train(bool) {}

// weightAndBias names a layer's weight and optional bias.
func weightAndBias(w, b *tensor.Tensor) []Named {
	ps := []Named{{"weight", w}}
	if b != nil {
		ps = append(ps, Named{"bias", b})
	}
	return ps
}

// usage panics with a *tensor.UsageError for the nn operation op, so that
// tensor.Catch turns it into an error like any other programmer error.
func usage(op, format string, args ...any) {
	panic(&tensor.UsageError{Op: "nn." + op, Msg: fmt.Sprintf(format, args...)})
}

// checkRank panics unless x has one of the ranks allowed.
func checkRank(op string, x *tensor.Tensor, ranks ...int) {
	for _, r := range ranks {
		if x.Dim() == r {
			return
		}
	}
	usage(op, "input %v has %d dimensions, want %v", x.Shape(), x.Dim(), ranks)
}
