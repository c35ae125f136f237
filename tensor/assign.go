package tensor

import "slices"

// Assign rebinds t to the value of u (same shape), detached from u's
// autograd history: the in-place update of parameters, optimizer state and
// running statistics. Other views of t's old value are unaffected. The new value
// is released with t: by the scope t was created in, if any.
func (t *Tensor) Assign(u *Tensor) {
	t.check("Assign")
	u.check("Assign")
	sameDevice("Assign", t.n.dev, u)
	if !slices.Equal(t.shape, u.shape) {
		usage("Assign", "shape %v into %v", u.shape, t.shape)
	}
	if u.DType() != t.DType() {
		u = u.Cast(t.DType())
	}
	d := t.n.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	// The handle stays (its scope membership and cleanup with it); only the
	// node it claims changes.
	old := t.h.n
	u.n.handles++
	t.h.n = u.n
	t.n, t.shape, t.strides, t.offset = u.n, u.Shape(), u.Strides(), u.offset
	old.handles--
	old.maybeFree()
}
