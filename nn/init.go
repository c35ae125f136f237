package nn

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor"
)

// The initializers of torch.nn.init. Each returns a lazy Float32 tensor of
// shape drawn from gen, or from the device's random stream when gen is nil;
// realize it (or let a layer do so) to fix its values.

// FanMode selects which fan the Kaiming initializers scale by.
type FanMode uint8

// The fan modes: FanIn preserves the forward pass's variance (PyTorch's
// default), FanOut the backward pass's.
const (
	FanIn FanMode = iota
	FanOut
)

// Fans returns the fan-in and fan-out of a weight of shape, as PyTorch
// computes them: shape[1] and shape[0], each times the product of the
// remaining (receptive field) dimensions. It panics for fewer than two
// dimensions.
func Fans(shape []int) (fanIn, fanOut int) {
	if len(shape) < 2 {
		usage("Fans", "fan in and fan out need at least 2 dimensions, got %v", shape)
	}
	recept := 1
	for _, s := range shape[2:] {
		recept *= s
	}
	return shape[1] * recept, shape[0] * recept
}

// Gain returns torch.nn.init.calculate_gain(nonlinearity, param): 1 for
// "linear", "identity", "conv1d", "conv2d", "conv3d" and "sigmoid"; 5/3 for
// "tanh"; sqrt(2) for "relu"; sqrt(2/(1+param²)) for "leaky_relu" (param is
// the negative slope; PyTorch's default 0.01 is not assumed); 3/4 for "selu".
// Other names panic.
func Gain(nonlinearity string, param float64) float64 {
	switch nonlinearity {
	case "linear", "identity", "conv1d", "conv2d", "conv3d", "sigmoid":
		return 1
	case "tanh":
		return 5.0 / 3
	case "relu":
		return math.Sqrt2
	case "leaky_relu":
		return math.Sqrt(2 / (1 + param*param))
	case "selu":
		return 0.75
	}
	usage("Gain", "unknown nonlinearity %q", nonlinearity)
	return 0
}

// Uniform returns values uniform in [lo, hi).
func Uniform(dev *tensor.Device, gen *tensor.Generator, lo, hi float64, shape ...int) *tensor.Tensor {
	if !(lo <= hi) {
		usage("Uniform", "bounds [%g, %g) are not ordered", lo, hi)
	}
	var u *tensor.Tensor
	if gen != nil {
		u = gen.Rand(dev, shape...)
	} else {
		u = tensor.Rand(dev, shape...)
	}
	return u.MulScalar(hi - lo).AddScalar(lo)
}

// Normal returns values from N(mean, std²).
func Normal(dev *tensor.Device, gen *tensor.Generator, mean, std float64, shape ...int) *tensor.Tensor {
	if !(std >= 0) {
		usage("Normal", "standard deviation %g is negative", std)
	}
	var n *tensor.Tensor
	if gen != nil {
		n = gen.Randn(dev, shape...)
	} else {
		n = tensor.Randn(dev, shape...)
	}
	return n.MulScalar(std).AddScalar(mean)
}

// kaimingStd returns gain/sqrt(fan) for torch.nn.init.kaiming_*.
func kaimingStd(shape []int, a float64, mode FanMode, nonlinearity string) float64 {
	fanIn, fanOut := Fans(shape)
	fan := fanIn
	if mode == FanOut {
		fan = fanOut
	}
	if fan == 0 {
		return 0 // an empty weight: nothing to draw
	}
	return Gain(nonlinearity, a) / math.Sqrt(float64(fan))
}

// KaimingUniform is torch.nn.init.kaiming_uniform_(w, a, mode,
// nonlinearity): uniform in ±gain*sqrt(3/fan). PyTorch's Linear and Conv
// weights use a = sqrt(5), FanIn, "leaky_relu", which gives ±1/sqrt(fan_in).
func KaimingUniform(dev *tensor.Device, gen *tensor.Generator, a float64, mode FanMode, nonlinearity string, shape ...int) *tensor.Tensor {
	bound := math.Sqrt(3) * kaimingStd(shape, a, mode, nonlinearity)
	return Uniform(dev, gen, -bound, bound, shape...)
}

// KaimingNormal is torch.nn.init.kaiming_normal_: N(0, (gain/sqrt(fan))²).
func KaimingNormal(dev *tensor.Device, gen *tensor.Generator, a float64, mode FanMode, nonlinearity string, shape ...int) *tensor.Tensor {
	return Normal(dev, gen, 0, kaimingStd(shape, a, mode, nonlinearity), shape...)
}

// XavierUniform is torch.nn.init.xavier_uniform_: uniform in
// ±gain*sqrt(6/(fan_in+fan_out)).
func XavierUniform(dev *tensor.Device, gen *tensor.Generator, gain float64, shape ...int) *tensor.Tensor {
	fanIn, fanOut := Fans(shape)
	bound := gain * math.Sqrt(6/float64(max(fanIn+fanOut, 1)))
	return Uniform(dev, gen, -bound, bound, shape...)
}

// XavierNormal is torch.nn.init.xavier_normal_: N(0, gain²*2/(fan_in+fan_out)).
func XavierNormal(dev *tensor.Device, gen *tensor.Generator, gain float64, shape ...int) *tensor.Tensor {
	fanIn, fanOut := Fans(shape)
	return Normal(dev, gen, 0, gain*math.Sqrt(2/float64(max(fanIn+fanOut, 1))), shape...)
}

// defaultWeight is PyTorch's initialization of Linear and Conv weights:
// kaiming_uniform_(a=sqrt(5)), i.e. uniform in ±1/sqrt(fan_in).
func defaultWeight(dev *tensor.Device, gen *tensor.Generator, shape ...int) *tensor.Tensor {
	return KaimingUniform(dev, gen, math.Sqrt(5), FanIn, "leaky_relu", shape...)
}

// defaultBias is PyTorch's initialization of Linear and Conv biases:
// uniform in ±1/sqrt(fan_in) (zero when fan_in is zero).
func defaultBias(dev *tensor.Device, gen *tensor.Generator, fanIn, n int) *tensor.Tensor {
	b := 0.0
	if fanIn > 0 {
		b = 1 / math.Sqrt(float64(fanIn))
	}
	return Uniform(dev, gen, -b, b, n)
}

// newParameter realizes t as a leaf that requires gradients. A device that
// cannot hold it panics, as tensor.FromFloat32s does.
func newParameter(op string, t *tensor.Tensor) *tensor.Tensor {
	return newState(op, t).SetRequiresGrad(true)
}

// newState realizes t as a leaf (a parameter's value or a buffer), detached
// from the expression that computed it. t's own claim on the value is
// released, so releasing the leaf frees it at once instead of when the
// garbage collector finds t.
func newState(op string, t *tensor.Tensor) *tensor.Tensor {
	if err := t.Realize(); err != nil {
		usage(op, "cannot allocate state %v on %s: %v", t.Shape(), t.Device().Name(), err)
	}
	leaf := t.Detach()
	t.Release()
	return leaf
}
