package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// maskedMaxPoolGrad returns the gradient of a ReLU whose output y feeds a
// max pool and nothing else, when g, the gradient reaching the ReLU, is that
// pool's backward (the pooled gradient scattered to the winners), not yet
// computed; otherwise nil.
//
// ReLU's gradient masks g by y > 0. A scattered gradient is zero away from
// the winners, and at a winner y equals the pooled value, so the mask can
// be applied to the pooled gradient, by pooled > 0, before the scatter:
// the same values, computed over a quarter of the elements for 2×2 windows
// instead of a pass over the whole activation (in the reference CNN, the
// masking passes took ~9% of a step).
func maskedMaxPoolGrad(y, g *Tensor) *Tensor {
	n := g.n
	if n.kind != kindPool || n.realized() || len(n.srcs) != 2 || !g.readsWhole() {
		return nil
	}
	a := n.attrs.(poolAttrs)
	fwd := n.srcs[1].n
	if !a.backward || a.op != device.PoolMax || a.input != y.n || !a.inputView.equal(y.view()) {
		return nil
	}
	d := n.dev
	d.mu.Lock()
	pooled := whole(fwd)
	gp := wrap(n.srcs[0].n, n.srcs[0].v)
	d.mu.Unlock()
	masked := Where(pooled.GtScalar(0), gp, ZerosLike(gp))
	return poolNode("PoolBackward", a, masked, fwd)
}

// readsWhole reports whether t reads all of its node in order.
func (t *Tensor) readsWhole() bool {
	return t.offset == 0 && slices.Equal(t.shape, t.n.shape) && t.view().equal(contiguousView(t.n.shape))
}

// equal reports whether two views read the same elements in the same order.
func (v view) equal(w view) bool {
	return v.offset == w.offset && slices.Equal(v.shape, w.shape) && slices.Equal(v.strides, w.strides)
}
