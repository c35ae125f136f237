// Package examples holds complete programs that use Shaderflow, each its own
// main package and each taking --backend (default auto): mlp and cnn train
// the reference models on Fashion-MNIST with evaluation and checkpoints,
// regression fits synthetic data with the mean squared error, and
// customloop trains with a loop of its own instead of train.Trainer. The
// package's test builds every program and runs it for a few steps.
package examples
