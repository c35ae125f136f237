// Package optim holds Shaderflow's optimizers (SGD with momentum, Nesterov
// and weight decay; Adam; AdamW) and learning-rate schedules (step decay,
// cosine annealing), with PyTorch's update rules.
//
// An optimizer holds the parameters it updates (leaf tensors that require
// gradients, as nn.Parameters returns them) and their state (momentum
// buffers, moment estimates). Step writes each new value with Assign and
// realizes it, so the lazy graph never grows from one step to the next and,
// inside a Device.Scope per training step, device memory stays flat. Build
// optimizers outside any scope: their state lives as long as they do.
//
// Each parameter's update is a short elementwise program. Without momentum
// it fuses into the kernel that produced the gradient (the matmul or
// reduction of the backward pass) and costs no kernel of its own; each
// state tensor (a momentum buffer, a moment estimate) costs one more
// elementwise kernel, since the front end realizes one tensor per kernel.
//
// The usual loop, with model an nn.Module:
//
//	opt := optim.NewSGD(nn.Parameters(model), optim.SGDConfig{LR: 0.05, Momentum: 0.9})
//	for each batch {
//		dev.Scope(func() {
//			loss := nn.CrossEntropy(model.Forward(x), y)
//			err = loss.Backward()
//			err = opt.Step()
//			opt.ZeroGrad()
//		})
//	}
package optim
