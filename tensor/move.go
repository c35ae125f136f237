package tensor

import "github.com/shaderflow/shaderflow/tensor/device"

// To returns t's value on device d, as PyTorch's t.to(d) does: t itself when
// it already lives on d, otherwise a contiguous copy of any dtype, read back
// through the host. The copy is a leaf of d's graph: it requires a gradient
// when t does, and gradients computed from it stay on d (they do not flow
// back to t, since a graph never spans devices). Failures of either device
// (t's computation, d out of memory, d closed) are returned.
func (t *Tensor) To(d *Device) (*Tensor, error) {
	t.check("To")
	if d == nil {
		usage("To", "nil device")
	}
	if d == t.n.dev {
		return t, nil
	}
	raw, err := t.Bytes()
	if err != nil {
		return nil, err
	}
	c, err := FromBytes(d, t.n.dtype, raw, t.shape...)
	if err != nil {
		return nil, err
	}
	if t.requiresGrad() {
		c.SetRequiresGrad(true)
	}
	return c, nil
}

// MoveTo rebinds t in place to a copy of its value on d (nothing happens
// when t already lives there): what moving a model's parameters needs, since
// modules and optimizers hold the *Tensor itself. t becomes a leaf on d that
// requires a gradient when it did; an accumulated gradient moves with it.
// Other views of the old value keep it, on the old device. The new value is
// released with t, or by d's innermost open Scope as if t were created now.
// On error t is unchanged.
func (t *Tensor) MoveTo(d *Device) error {
	t.check("MoveTo")
	if d == nil {
		usage("MoveTo", "nil device")
	}
	if d == t.n.dev {
		return nil
	}
	c, err := t.To(d)
	if err != nil {
		return err
	}
	var g *Tensor
	if old := t.Grad(); old != nil {
		if g, err = old.To(d); err != nil {
			c.Release()
			return err
		}
	}
	requires := t.requiresGrad()
	t.Release()
	t.takeOver(c)
	t.ag = nil
	if requires {
		t.ag = &gradInfo{requires: true, grad: g}
	}
	return nil
}

// takeOver gives t a handle of its own onto c's value and releases c: t's
// struct is the one its holders point to, so it cannot adopt c's handle,
// whose cleanup belongs to c.
func (t *Tensor) takeOver(c *Tensor) {
	d := c.n.dev
	d.mu.Lock()
	bind(t, c.n, c.view())
	d.mu.Unlock()
	c.Release()
}

// Clone returns a copy of t with storage of its own (contiguous, same dtype
// and device), as PyTorch's clone: gradients flow back to t. Since tensors are
// values, a clone matters where storage does: it survives Release of t and
// of t's views, and it is one buffer rather than a view into a larger one.
func (t *Tensor) Clone() *Tensor {
	t.check("Clone")
	// The identity copy has Contiguous's gradient rule, so it is recorded
	// as that operation.
	return elementwise(opContiguous, device.OpCast, t.n.dtype, t.n.dtype.ComputeType(), []*Tensor{t})
}
