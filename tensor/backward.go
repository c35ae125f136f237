package tensor

import "fmt"

// Backward computes the gradient of t (a scalar, or any tensor with an
// implicit gradient of ones) with respect to every leaf that requires grad,
// adding it to the leaves' Grad. The backward graph is recorded lazily like
// any other computation and fused the same way.
func (t *Tensor) Backward() error {
	t.check("Backward")
	if !t.requiresGrad() {
		return errNoGraph
	}
	return t.BackwardWith(OnesLike(t))
}

// BackwardWith runs the backward pass seeded with gradient g of t's shape.
func (t *Tensor) BackwardWith(g *Tensor) (err error) {
	t.check("Backward")
	if !t.requiresGrad() {
		return errNoGraph
	}
	defer func() {
		if r := recover(); r != nil {
			if ue, ok := r.(*UsageError); ok {
				err = fmt.Errorf("tensor.Backward: %w", ue)
				return
			}
			panic(r)
		}
	}()
	// Topological order of the recorded operations reachable from t.
	var order []*Tensor
	seen := map[*gradInfo]bool{}
	var visit func(x *Tensor)
	visit = func(x *Tensor) {
		if x == nil || x.ag == nil || seen[x.ag] {
			return
		}
		seen[x.ag] = true
		if x.ag.fn != nil {
			for _, in := range x.ag.fn.inputs {
				if in != nil && in.requiresGrad() {
					visit(in)
				}
			}
		}
		order = append(order, x)
	}
	visit(t)
	grads := map[*gradInfo]*Tensor{t.ag: g}
	NoGrad(func() {
		for i := len(order) - 1; i >= 0; i-- {
			x := order[i]
			gx := grads[x.ag]
			if gx == nil {
				continue
			}
			delete(grads, x.ag)
			if x.ag.fn == nil {
				accumulateLeaf(x, gx)
				continue
			}
			rule := gradRules[x.ag.fn.op]
			if rule == nil {
				usage("Backward", "no gradient rule for %s", x.ag.fn.op)
			}
			gins := rule(&gradCtx{node: x.ag.fn, g: gx})
			for j, in := range x.ag.fn.inputs {
				if in == nil || !in.requiresGrad() || j >= len(gins) || gins[j] == nil {
					continue
				}
				gi := sumToShape(gins[j], in.shape)
				if prev := grads[in.ag]; prev != nil {
					gi = prev.Add(gi)
				}
				grads[in.ag] = gi
			}
		}
	})
	return nil
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
	d.mu.Unlock()
	g.collectable()
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
	if len(g.shape) == len(shape) {
		same := true
		for i := range shape {
			if g.shape[i] != shape[i] {
				same = false
			}
		}
		if same {
			return g
		}
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
