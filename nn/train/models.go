package train

import (
	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/tensor"
)

// MLP returns the reference multilayer perceptron for 28×28 images:
// Flatten → Linear(784, 128) → ReLU → Linear(128, 10). Its state names
// ("1.weight", "3.bias", ...) match the same torch.nn.Sequential.
func MLP(dev *tensor.Device, gen *tensor.Generator) *nn.Sequential {
	g := nn.WithGenerator(gen)
	return nn.NewSequential(
		nn.NewFlatten(),
		nn.NewLinear(dev, 28*28, 128, g),
		nn.NewReLU(),
		nn.NewLinear(dev, 128, 10, g),
	)
}

// CNN returns the reference convolutional network for 1×28×28 images:
// Conv2d(1, 32, 3) → ReLU → MaxPool2d(2) → Conv2d(32, 64, 3) → ReLU →
// MaxPool2d(2) → Flatten → Linear(1600, 128) → ReLU → Linear(128, 10).
func CNN(dev *tensor.Device, gen *tensor.Generator) *nn.Sequential {
	g := nn.WithGenerator(gen)
	return nn.NewSequential(
		nn.NewConv2d(dev, 1, 32, 3, g),
		nn.NewReLU(),
		nn.NewMaxPool2d(2),
		nn.NewConv2d(dev, 32, 64, 3, g),
		nn.NewReLU(),
		nn.NewMaxPool2d(2),
		nn.NewFlatten(),
		nn.NewLinear(dev, 64*5*5, 128, g),
		nn.NewReLU(),
		nn.NewLinear(dev, 128, 10, g),
	)
}
