package tensor

import (
	"fmt"
	"slices"
)

// Backward computes the gradient of t, which must hold exactly one element
// (a loss), with respect to every leaf that requires grad, adding it to the
// leaves' Grad. As in PyTorch, a tensor of several elements needs its
// gradient given explicitly: use BackwardWith. The backward graph is
// recorded lazily like any other computation and fused the same way.
func (t *Tensor) Backward() error {
	t.check("Backward")
	if !t.requiresGrad() {
		return errNoGraph
	}
	if t.NumElements() != 1 {
		usage("Backward", "the gradient can be implied only for a tensor of one element, got shape %v; give it with BackwardWith", t.shape)
	}
	return t.backward(OnesLike(t))
}

// BackwardWith runs the backward pass seeded with g, the gradient of t: a
// tensor of t's shape on t's device (anything else panics with a
// UsageError). A seed of another dtype is cast to t's.
func (t *Tensor) BackwardWith(g *Tensor) error {
	t.check("BackwardWith")
	g.check("BackwardWith")
	if !t.requiresGrad() {
		return errNoGraph
	}
	if g.n.dev != t.n.dev {
		usage("BackwardWith", "gradient on a different device (%s) from the tensor's (%s)", g.n.dev.Name(), t.n.dev.Name())
	}
	if !slices.Equal(g.shape, t.shape) {
		usage("BackwardWith", "gradient of shape %v for a tensor of shape %v", g.shape, t.shape)
	}
	if g.n.dtype != t.n.dtype {
		g = g.Cast(t.n.dtype)
	}
	return t.backward(g.Detach())
}

// backward propagates g, t's gradient (recording nothing itself), to the
// leaves. A usage error raised by a gradient rule is returned as an error.
func (t *Tensor) backward(g *Tensor) (err error) {
	var op gradOp // the operation whose rule is running; zero before the first
	defer func() {
		if r := recover(); r != nil {
			if ue, ok := r.(*UsageError); ok {
				if op == nil {
					err = fmt.Errorf("tensor.Backward: %w", ue)
				} else {
					err = fmt.Errorf("tensor.Backward: gradient of %s: %w", op, ue)
				}
				return
			}
			panic(r)
		}
	}()
	order := graphOrder(t)
	terms := map[*gradInfo]*gradTerms{t.ag: {sum: g, n: 1}}
	termsOf := func(x *Tensor) *gradTerms {
		a := terms[x.ag]
		if a == nil {
			a = &gradTerms{}
			terms[x.ag] = a
		}
		return a
	}
	for i := len(order) - 1; i >= 0; i-- {
		x := order[i]
		a := terms[x.ag]
		if a == nil {
			continue
		}
		delete(terms, x.ag)
		if len(a.slices) > 0 {
			op = opSlice
		}
		gx := a.total(x.shape)
		if x.ag.fn == nil {
			accumulateLeaf(x, gx)
			continue
		}
		if a.n > 1 {
			// Stored once: a lazy sum would be recomputed in every kernel of
			// the rule that reads it, and through a residual stack the sum
			// gains a term per layer.
			gx.Materialize()
		}
		op = x.ag.fn.op
		if op == opSlice {
			// Gathered with the other slices of the same input and placed
			// when its gradient is complete (backward_slices.go).
			if in := x.ag.fn.inputs[0]; in.requiresGrad() {
				termsOf(in).addSlice(x.ag.fn.params.(sliceParams), gx)
			}
			continue
		}
		rule := op.rule()
		if rule == nil {
			return fmt.Errorf("tensor.Backward: no gradient rule for %s", op)
		}
		gins := rule(&gradCtx{node: x.ag.fn, g: gx})
		for j, in := range x.ag.fn.inputs {
			if in == nil || !in.requiresGrad() || j >= len(gins) || gins[j] == nil {
				continue
			}
			termsOf(in).add(sumToShape(gins[j], in.shape))
		}
	}
	return nil
}

// graphOrder returns the tensors of the recorded operations reachable from
// t, inputs before the tensors computed from them: the post-order of a
// depth-first walk that visits inputs in order. The walk keeps its own stack
// so that a chain of millions of operations cannot exhaust the goroutine
// stack.
func graphOrder(t *Tensor) []*Tensor {
	if t == nil || t.ag == nil {
		return nil
	}
	// frame is a tensor whose inputs are being visited; next is the index
	// of the input to visit next.
	type frame struct {
		x    *Tensor
		next int
	}
	var order []*Tensor
	seen := map[*gradInfo]bool{t.ag: true}
	stack := []frame{{x: t}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		x := top.x
		var inputs []*Tensor
		if x.ag.fn != nil {
			inputs = x.ag.fn.inputs
		}
		if top.next < len(inputs) {
			in := inputs[top.next]
			top.next++
			if in != nil && in.ag != nil && in.requiresGrad() && !seen[in.ag] {
				seen[in.ag] = true
				stack = append(stack, frame{x: in})
			}
			continue
		}
		stack = stack[:len(stack)-1]
		order = append(order, x)
	}
	return order
}

// accumulateLeaf adds g to a leaf's gradient, keeping it outside every scope
// so that gradients survive the step that computed them.
func accumulateLeaf(x, g *Tensor) {
	if g.n.dtype != x.n.dtype {
		g = g.Cast(x.n.dtype)
	}
	if x.ag.grad != nil {
		old := x.ag.grad
		g = old.Add(g)
		old.Release()
	}
	d := g.n.dev
	d.mu.Lock()
	d.detachFromScopes(g.h)
	g.collectable()
	d.mu.Unlock()
	x.ag.grad = g
}

// detachFromScopes removes h from every open scope. The caller holds d.mu.
func (d *Device) detachFromScopes(h *handle) {
	for _, f := range d.scopes {
		for j := len(f.handles) - 1; j >= 0; j-- {
			if f.handles[j] == h {
				f.handles = append(f.handles[:j], f.handles[j+1:]...)
			}
		}
	}
}

// sumToShape sums g over the dimensions that broadcasting expanded to reach
// shape.
func sumToShape(g *Tensor, shape []int) *Tensor {
	if slices.Equal(g.shape, shape) {
		return g
	}
	lead := len(g.shape) - len(shape)
	var axes []int
	for i := range g.shape {
		if i < lead || (shape[i-lead] == 1 && g.shape[i] != 1) {
			axes = append(axes, i)
		}
	}
	g = pooledSummand(g, axes)
	if len(axes) == lead { // only new leading dimensions: the sum has shape already
		return g.Sum(axes...)
	}
	return g.SumKeepDim(axes...).Reshape(shape...)
}
