package tensor

import (
	"errors"
	"slices"
)

// gradInfo is a tensor's autograd state.
type gradInfo struct {
	requires bool
	grad     *Tensor   // accumulated gradient (leaves and retained tensors)
	fn       *gradNode // how this tensor was computed; nil for leaves
}

// gradNode records one differentiable operation for the backward pass.
type gradNode struct {
	op     gradOp
	inputs []*Tensor
	out    *Tensor
	params any
}

// gradCtx is what a backward rule receives. The tensors it hands out carry
// no autograd state, so a rule records nothing whatever the grad mode.
type gradCtx struct {
	node *gradNode
	g    *Tensor   // gradient of the operation's output, detached
	ins  []*Tensor // detached inputs, made on first use
	o    *Tensor   // detached output, made on first use
}

// in returns input i, detached.
func (c *gradCtx) in(i int) *Tensor {
	if c.ins == nil {
		c.ins = make([]*Tensor, len(c.node.inputs))
	}
	if c.ins[i] == nil {
		c.ins[i] = c.node.inputs[i].Detach()
	}
	return c.ins[i]
}

// out returns the operation's output, detached.
func (c *gradCtx) out() *Tensor {
	if c.o == nil {
		c.o = c.node.out.Detach()
	}
	return c.o
}

// inShape returns input i's shape.
func (c *gradCtx) inShape(i int) []int { return c.node.inputs[i].shape }

// needs reports whether input i wants a gradient.
func (c *gradCtx) needs(i int) bool {
	in := c.node.inputs[i]
	return in != nil && in.requiresGrad()
}

// backwardFn returns the gradient for each input (nil where an input needs
// none). Each gradOp holds its rule.
type backwardFn func(c *gradCtx) []*Tensor

func (t *Tensor) requiresGrad() bool { return t.ag != nil && t.ag.requires }

// recordGrad attaches the backward record of op to out when an input needs a
// gradient and the device's grad mode is on; params are the op's parameters
// for its rule.
func recordGrad(op gradOp, out *Tensor, ins []*Tensor, params any) *Tensor {
	if !out.n.dtype.IsFloat() || !out.n.dev.GradEnabled() {
		return out
	}
	for _, in := range ins {
		if in != nil && in.requiresGrad() {
			out.ag = &gradInfo{requires: true, fn: &gradNode{op: op, inputs: slices.Clone(ins), out: out, params: params}}
			return out
		}
	}
	return out
}

// SetRequiresGrad marks a leaf tensor as needing a gradient and returns it.
func (t *Tensor) SetRequiresGrad(on bool) *Tensor {
	t.check("SetRequiresGrad")
	if t.ag != nil && t.ag.fn != nil {
		usage("SetRequiresGrad", "tensor %v is the result of %s, not a leaf; use Detach first", t.shape, t.ag.fn.op)
	}
	if on && !t.n.dtype.IsFloat() {
		usage("SetRequiresGrad", "only float tensors can require gradients, got %s", t.n.dtype)
	}
	if t.ag == nil {
		t.ag = &gradInfo{}
	}
	t.ag.requires = on
	return t
}

// RequiresGrad reports whether a gradient flows to t.
func (t *Tensor) RequiresGrad() bool { return t.requiresGrad() }

// Grad returns the gradient accumulated by Backward, or nil.
func (t *Tensor) Grad() *Tensor {
	if t.ag == nil {
		return nil
	}
	return t.ag.grad
}

// ZeroGrad clears the accumulated gradient.
func (t *Tensor) ZeroGrad() {
	if t.ag != nil && t.ag.grad != nil {
		t.ag.grad.Release()
		t.ag.grad = nil
	}
}

// Detach returns a tensor sharing t's value with no autograd history.
func (t *Tensor) Detach() *Tensor {
	t.check("Detach")
	d := t.n.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	return wrap(t.n, t.view())
}

// errNoGraph is returned by Backward on a tensor no gradient flows to.
var errNoGraph = errors.New("tensor.Backward: tensor does not require grad (no input had SetRequiresGrad(true))")
