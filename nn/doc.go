// Package nn is Shaderflow's neural-network layer: modules (Linear, Conv1d,
// Conv2d, pooling, normalization, Dropout, Embedding, activations,
// Sequential), PyTorch's default initializers, loss functions and
// safetensors checkpoints. Optimizers and learning-rate schedules live in
// nn/optim, data loading in nn/data, the checkpoint format in nn/safetensors.
//
// A Module maps a tensor to a tensor and names its state the way PyTorch's
// state_dict does: a Sequential's children are "0", "1", ..., a Linear's
// tensors "weight" and "bias", so the second layer's weight of a Sequential is
// "1.weight" and a checkpoint written here loads into the same PyTorch model
// (and back). Parameters are leaf tensors that require gradients; buffers
// (BatchNorm's running statistics) are state that is saved but not trained.
//
// Layers are built on one device and initialized as PyTorch initializes
// them, from a seeded tensor.Generator when WithGenerator is given and from
// the device's random stream otherwise:
//
//	model := nn.NewSequential(
//		nn.NewFlatten(),
//		nn.NewLinear(dev, 784, 128),
//		nn.NewReLU(),
//		nn.NewLinear(dev, 128, 10),
//	)
//	loss := nn.CrossEntropy(model.Forward(x), labels)
//
// Errors follow the tensor package: a programmer error (a layer given an
// input of the wrong shape) panics with a *tensor.UsageError naming the
// layer and the shapes, which tensor.Catch turns into an error; a malformed
// checkpoint, a shape mismatch on load or a failing device returns an error.
//
// State that a layer updates in place during training (BatchNorm's running
// statistics) is computed at once, so that the lazy graph never grows from
// one step to the next; a device failure there surfaces at the next read of
// that state (saving, evaluation).
package nn
