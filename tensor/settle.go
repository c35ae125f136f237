package tensor

// When runtime errors surface. A kernel can find a bad input only while it
// runs (a gather index out of range): the CPU backend returns the error from
// the launch, a GPU backend after the work completes (from its next Sync or
// Read). So that the same call fails on every backend, Realize waits for the
// kernels it launched and returns their first error, and a read returns the
// error of the kernels that computed the value it reads. A failed value is
// failed for good: the error is kept on its node, every later Realize or
// read of it returns the error and no data, and results computed from it
// fail in turn.

// settle waits for the kernels launched so far and returns the first error
// they reported, recording it on each node in ns (whose values may come from
// the failed kernel). The caller holds d.mu.
func (d *Device) settle(ns ...*node) error {
	err := d.raw.Sync()
	if err != nil {
		for _, n := range ns {
			d.fail(n, err)
		}
	}
	return err
}

// fail records err as n's sticky error unless n already has one.
func (d *Device) fail(n *node, err error) {
	if n.err == nil {
		n.err = err
	}
}
