// Command customloop trains a classifier of two interleaved spirals with a
// loop of its own instead of train.Trainer: each step is a Device.ScopeErr
// holding the forward pass, Backward, the optimizer step and ZeroGrad, as
// a PyTorch loop would, with AdamW, a cosine learning-rate schedule and an
// accuracy read every few hundred steps.
//
//	go run ./examples/customloop --steps 2000 --backend vulkan
package main
