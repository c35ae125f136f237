package optim

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor"
)

// Optimizer updates parameters from the gradients Backward accumulated.
type Optimizer interface {
	// Step updates every parameter that has a gradient and launches the
	// kernels computing the new values and state (tensor.Launch) without
	// waiting for them; it returns the errors found before they run, and a
	// kernel's runtime error surfaces at the next read or Sync.
	Step() error
	// ZeroGrad clears the parameters' gradients (call it after each Step).
	ZeroGrad()
	// LR returns the learning rate.
	LR() float64
	// SetLR changes the learning rate, as a schedule does.
	SetLR(lr float64)
}

// params is the part every optimizer shares: its parameters, learning rate
// and step count.
type params struct {
	ps    []*tensor.Tensor
	lr    float64
	steps int
}

// newParams checks the parameters and learning rate.
func newParams(op string, ps []*tensor.Tensor, lr float64) params {
	if !(lr >= 0) {
		usage(op, "learning rate %g must be non-negative", lr)
	}
	for i, p := range ps {
		if p == nil || !p.RequiresGrad() {
			usage(op, "parameter %d does not require gradients", i)
		}
	}
	return params{ps: ps, lr: lr}
}

// ZeroGrad clears every parameter's gradient.
func (o *params) ZeroGrad() {
	for _, p := range o.ps {
		p.ZeroGrad()
	}
}

// LR returns the learning rate.
func (o *params) LR() float64 { return o.lr }

// SetLR changes the learning rate.
func (o *params) SetLR(lr float64) {
	if !(lr >= 0) {
		usage("SetLR", "learning rate %g must be non-negative", lr)
	}
	o.lr = lr
}

// Steps returns how many times Step has run.
func (o *params) Steps() int { return o.steps }

// apply computes each parameter's update with fn, which receives the
// parameter detached so that nothing is recorded for autograd, assigns the
// new values and launches them all with one tensor.Launch, which computes
// same-shape elementwise results together: a parameter's new value and its
// new state come out of one kernel, which computes the shared state
// expressions once. It does not wait for the kernels, so the caller records
// the next step while they run; an error a kernel hits while running is
// returned by the next read or Sync. fn returns the new parameter value and
// the new state values in the order of state(i).
func (o *params) apply(fn func(i int, p, g *tensor.Tensor) (*tensor.Tensor, []*tensor.Tensor), state func(i int) []*tensor.Tensor) error {
	o.steps++
	var out []*tensor.Tensor
	for i, p := range o.ps {
		g := p.Grad()
		if g == nil {
			continue
		}
		np, ns := fn(i, p.Detach(), g)
		for j, s := range state(i) {
			s.Assign(ns[j])
			out = append(out, s)
		}
		p.Assign(np)
		out = append(out, p)
	}
	if err := tensor.Launch(out...); err != nil {
		return fmt.Errorf("optim: step %d: %w", o.steps, err)
	}
	return nil
}

// zerosLike returns zero state for each parameter; the zeros are constants
// that occupy no memory until the first step writes the state.
func zerosLike(ps []*tensor.Tensor) []*tensor.Tensor {
	out := make([]*tensor.Tensor, len(ps))
	for i, p := range ps {
		out[i] = tensor.ZerosLike(p)
	}
	return out
}

// usage panics with a *tensor.UsageError for the optim operation op.
func usage(op, format string, args ...any) {
	panic(&tensor.UsageError{Op: "optim." + op, Msg: fmt.Sprintf(format, args...)})
}
