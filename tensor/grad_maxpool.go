package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Two rewrites of gradients that reach an unrealized max-pool backward (the
// pooled gradient scattered to the windows' winners): operations on the
// scattered gradient that can run on the pooled one, a quarter of the
// elements for 2×2 windows, do. In the reference CNN (conv → ReLU → max
// pool, twice) the ReLU masks and the bias sums over full activations took
// ~9% and ~4% of a training step.

// scatter is what an unrealized max-pool backward is made of.
type scatter struct {
	attrs  poolAttrs
	grad   *Tensor // the pooled gradient it scatters
	pooled *Tensor // the forward pool's output, when asked for
}

// scatterOf looks at g under the device lock: when g reads whole an
// unrealized max-pool backward, it returns its parts (handles on the pooled
// gradient and, with forward set, on the forward pool's output) and true.
func scatterOf(g *Tensor, forward bool) (s scatter, ok bool) {
	n := g.n
	d := n.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if n.kind != kindPool || n.realized() || len(n.srcs) != 2 || !g.readsWhole() {
		return s, false
	}
	a := n.attrs.(poolAttrs)
	if !a.backward || a.op != device.PoolMax {
		return s, false
	}
	s = scatter{attrs: a, grad: wrap(n.srcs[0].n, n.srcs[0].v)}
	if forward {
		s.pooled = whole(n.srcs[1].n)
	}
	return s, true
}

// maskedMaxPoolGrad returns the gradient of a ReLU with output y when g, the
// gradient reaching it, is exactly the backward of one max pool over y (y
// feeds no other differentiable use); otherwise nil.
//
// ReLU's gradient masks g by y > 0. A scattered gradient is zero away from
// the winners, and at a winner y equals the pooled value, so the mask can
// be applied to the pooled gradient, by pooled > 0, before the scatter: the
// same values.
func maskedMaxPoolGrad(y, g *Tensor) *Tensor {
	if a, ok := g.n.attrs.(poolAttrs); !ok || a.input != y.n || !a.inputView.equal(y.view()) {
		return nil // not a pool over y (attrs never change once a node exists)
	}
	s, ok := scatterOf(g, true)
	if !ok {
		return nil
	}
	masked := Where(s.pooled.GtScalar(0), s.grad, ZerosLike(s.grad))
	return poolNode(s.attrs, masked, s.pooled.n)
}

// pooledSummand returns the tensor to sum in place of g when g is a max-pool
// backward and axes cover its spatial dimensions (a bias gradient sums over
// images, rows and columns): the scatter moves values only within their
// image's channel plane, so the sum of the pooled gradient is the same.
// Otherwise it returns g.
func pooledSummand(g *Tensor, axes []int) *Tensor {
	if len(g.shape) != 4 || !slices.Contains(axes, 2) || !slices.Contains(axes, 3) {
		return g
	}
	if s, ok := scatterOf(g, false); ok {
		return s.grad
	}
	return g
}

// readsWhole reports whether t reads all of its node in order.
func (t *Tensor) readsWhole() bool {
	return t.view().equal(contiguousView(t.n.shape))
}

// equal reports whether two views read the same elements in the same order.
func (v view) equal(w view) bool {
	return v.offset == w.offset && slices.Equal(v.shape, w.shape) && slices.Equal(v.strides, w.strides)
}
