package tensor

// Materialize computes t's value now, without waiting for the device, and
// returns t: the kernels that later read t read its stored result instead
// of recomputing the fused expression that defines it inside each of them.
// Call it on a value that many kernels read, such as the running sum of a
// residual network, whose expression grows with every layer. A failure is
// kept in t and returned by the next read, as a lazy value's would be.
func (t *Tensor) Materialize() *Tensor {
	t.check("Materialize")
	d := t.n.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	d.maybeReclaim()
	t.check("Materialize") // a Scope on another goroutine may have released it meanwhile
	if err := d.realize(t.n); err != nil {
		d.fail(t.n, err)
	}
	return t
}
