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
// Their state lives on the parameters' device: build an optimizer after
// nn.To has moved the model, or move its state too with its MoveTo method.
//
// Each parameter's update is a short elementwise program. Step realizes all
// the new values with one tensor.Realize, which computes same-shape
// elementwise results in one multi-output kernel: a parameter and its state
// (momentum buffer, moment estimates) are written by one kernel, at most one
// per parameter (parameters of one shape may share it).
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
