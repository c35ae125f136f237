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
//
// Launch computes without waiting, so an error may surface at a later wait
// than the one its values were computed for, and an intermediate value
// computed by a failed kernel is not among the nodes a wait names. So that
// none of them is read as good, computed nodes carry the generation they
// were launched in (the waits so far, counting from 1): a wait that returns
// an error fails its whole generation, and realizing or reading a node of a
// failed generation returns that generation's error.

// settle waits for the kernels launched so far and returns the first error
// they reported, recording it on each node in ns and on every node computed
// since the previous wait (whose values may come from the failed kernel).
// The caller holds d.mu.
func (d *Device) settle(ns ...*node) error {
	err := d.raw.Sync()
	if err != nil {
		for _, n := range ns {
			d.fail(n, err)
		}
	}
	d.endGeneration(err)
	return err
}

// endGeneration closes the current generation of launches, failed with err
// when err is not nil. The caller holds d.mu.
func (d *Device) endGeneration(err error) {
	if err != nil {
		if d.failedGens == nil {
			d.failedGens = map[uint64]error{}
		}
		d.failedGens[d.gen] = err
	}
	d.gen++
}

// computed stamps a node that a kernel just computed with the current
// generation. The caller holds d.mu.
func (d *Device) computed(n *node) { n.gen = d.gen }

// generationError returns the error of the failed generation n was computed
// in, or nil. The caller holds d.mu.
func (d *Device) generationError(n *node) error {
	if d.failedGens == nil || n.gen == 0 {
		return nil
	}
	return d.failedGens[n.gen]
}

// fail records err as n's sticky error unless n already has one.
func (d *Device) fail(n *node, err error) {
	if n.err == nil {
		n.err = err
	}
}
