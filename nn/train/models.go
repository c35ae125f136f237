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
// Conv2d(1, 32, 3, padding 1) → ReLU → MaxPool2d(2) → Conv2d(32, 64, 3,
// padding 1) → ReLU → MaxPool2d(2) → Flatten → Linear(3136, 128) → ReLU →
// Linear(128, 10).
//
// The convolutions keep their images' size ("same" padding). The reference
// protocol (SGD lr 0.05, momentum 0.9, batch 64, one epoch) leaves the
// unpadded network at 86% test accuracy on average, with PyTorch as with
// Shaderflow, its last iterate swinging ±1.5 points between seeds; padded,
// both reach 88% (docs/training.md has the figures).
func CNN(dev *tensor.Device, gen *tensor.Generator) *nn.Sequential {
	g := nn.WithGenerator(gen)
	return nn.NewSequential(
		nn.NewConv2d(dev, 1, 32, 3, g, nn.Padding(1)),
		nn.NewReLU(),
		nn.NewMaxPool2d(2),
		nn.NewConv2d(dev, 32, 64, 3, g, nn.Padding(1)),
		nn.NewReLU(),
		nn.NewMaxPool2d(2),
		nn.NewFlatten(),
		nn.NewLinear(dev, 64*7*7, 128, g),
		nn.NewReLU(),
		nn.NewLinear(dev, 128, 10, g),
	)
}
