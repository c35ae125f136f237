package optim

import "github.com/shaderflow/shaderflow/tensor"

// SplitDecay splits parameters as GPT-2 training does: tensors of two or
// more dimensions (the weights of Linear and Embedding) go to decay, the
// rest (biases, LayerNorm scales and shifts) to noDecay, each in ps's order.
// Give them to two optimizers (for instance AdamW with and without
// WeightDecay) and combine those with NewGroup.
func SplitDecay(ps []*tensor.Tensor) (decay, noDecay []*tensor.Tensor) {
	for _, p := range ps {
		if p.Dim() >= 2 {
			decay = append(decay, p)
		} else {
			noDecay = append(noDecay, p)
		}
	}
	return decay, noDecay
}

// Group is several optimizers stepped as one, PyTorch's parameter groups:
// each keeps its own hyperparameters, and SetLR sets every group's rate
// (so one schedule drives them all).
type Group []Optimizer

// NewGroup returns the optimizers as one Optimizer.
func NewGroup(opts ...Optimizer) Group {
	if len(opts) == 0 {
		usage("Group", "no optimizers")
	}
	return Group(opts)
}

// Step steps every optimizer and returns the first error.
func (g Group) Step() error {
	for _, o := range g {
		if err := o.Step(); err != nil {
			return err
		}
	}
	return nil
}

// ZeroGrad clears every optimizer's gradients.
func (g Group) ZeroGrad() {
	for _, o := range g {
		o.ZeroGrad()
	}
}

// LR returns the first optimizer's rate.
func (g Group) LR() float64 { return g[0].LR() }

// SetLR sets every optimizer's rate.
func (g Group) SetLR(lr float64) {
	for _, o := range g {
		o.SetLR(lr)
	}
}
