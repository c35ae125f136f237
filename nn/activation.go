package nn

import (
	"github.com/shaderflow/shaderflow/tensor"
)

// Activation is an elementwise (or, for Softmax, row-wise) function with no
// state: ReLU, GELU, Sigmoid, Tanh, SiLU, Softmax, LogSoftmax.
type Activation struct {
	stateless
	name string
	fn   func(*tensor.Tensor) *tensor.Tensor
}

// Forward applies the function.
func (a *Activation) Forward(x *tensor.Tensor) *tensor.Tensor { return a.fn(x) }

// String returns the function's name.
func (a *Activation) String() string { return a.name }

// NewReLU returns torch.nn.ReLU: max(x, 0).
func NewReLU() *Activation { return &Activation{name: "ReLU", fn: (*tensor.Tensor).Relu} }

// NewGELU returns torch.nn.GELU: the exact (erf) form, or the tanh
// approximation when tanhApprox is set (approximate="tanh").
func NewGELU(tanhApprox bool) *Activation {
	if tanhApprox {
		return &Activation{name: "GELU(tanh)", fn: (*tensor.Tensor).GeluTanh}
	}
	return &Activation{name: "GELU", fn: (*tensor.Tensor).Gelu}
}

// NewSigmoid returns torch.nn.Sigmoid.
func NewSigmoid() *Activation { return &Activation{name: "Sigmoid", fn: (*tensor.Tensor).Sigmoid} }

// NewTanh returns torch.nn.Tanh.
func NewTanh() *Activation { return &Activation{name: "Tanh", fn: (*tensor.Tensor).Tanh} }

// NewSiLU returns torch.nn.SiLU: x*sigmoid(x).
func NewSiLU() *Activation { return &Activation{name: "SiLU", fn: (*tensor.Tensor).Silu} }

// NewSoftmax returns torch.nn.Softmax(dim).
func NewSoftmax(dim int) *Activation {
	return &Activation{name: "Softmax", fn: func(x *tensor.Tensor) *tensor.Tensor { return x.Softmax(dim) }}
}

// NewLogSoftmax returns torch.nn.LogSoftmax(dim).
func NewLogSoftmax(dim int) *Activation {
	return &Activation{name: "LogSoftmax", fn: func(x *tensor.Tensor) *tensor.Tensor { return x.LogSoftmax(dim) }}
}

// Flatten is torch.nn.Flatten: it merges dimensions Start..End (inclusive;
// negative counts from the end) into one, by default all but the batch
// dimension.
type Flatten struct {
	stateless
	Start, End int
}

// NewFlatten returns Flatten(1, -1).
func NewFlatten() *Flatten { return &Flatten{Start: 1, End: -1} }

// Forward flattens x (a view when its layout allows).
func (f *Flatten) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Flatten(f.Start, f.End) }
