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

// maxPoolBackward returns the pooling node that g reads whole when it is an
// unrealized max-pool backward, else nil.
func maxPoolBackward(g *Tensor) *node {
	n := g.n
	if n.kind != kindPool || n.realized() || len(n.srcs) != 2 || !g.readsWhole() {
		return nil
	}
	if a := n.attrs.(poolAttrs); !a.backward || a.op != device.PoolMax {
		return nil
	}
	return n
}

// pooledGrad returns the pooled gradient that backward node n scatters.
func pooledGrad(n *node) *Tensor {
	n.dev.mu.Lock()
	defer n.dev.mu.Unlock()
	return wrap(n.srcs[0].n, n.srcs[0].v)
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
	n := maxPoolBackward(g)
	if n == nil {
		return nil
	}
	a := n.attrs.(poolAttrs)
	if a.input != y.n || !a.inputView.equal(y.view()) {
		return nil
	}
	fwd := n.srcs[1].n
	d := n.dev
	d.mu.Lock()
	pooled := whole(fwd)
	d.mu.Unlock()
	gp := pooledGrad(n)
	masked := Where(pooled.GtScalar(0), gp, ZerosLike(gp))
	return poolNode("PoolBackward", a, masked, fwd)
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
	if n := maxPoolBackward(g); n != nil {
		return pooledGrad(n)
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
