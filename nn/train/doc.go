// Package train runs the training and evaluation loops of image
// classifiers on nn/data datasets: the reference models of the Fashion-MNIST
// workloads (an MLP and a small CNN), a Trainer whose every step runs inside
// a Device.Scope so that device memory stays flat, and Evaluate for test
// accuracy. cmd/demo's --train mode and the nn tests are built on it.
//
// Trainer is a convenience, not a framework: its StepTensors and Loss train
// any model on any loss (regression, multi-label), and a loop of one's own
// needs only Device.ScopeErr, Backward and an optimizer (see
// examples/customloop).
package train
