package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/shaderflow/shaderflow/tensor/pool"
)

// realizeMany realizes the nodes of ts, computing unrealized elementwise
// nodes of equal shape together in multi-output kernels, and waits for the
// kernels when wait is set.
func (d *Device) realizeMany(ts []*Tensor, wait bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.maybeReclaim()
	var groups [][]*node
	var others []*node
	for _, t := range ts {
		n := t.n
		switch {
		case n.err != nil:
			return n.err
		case n.block != nil || slices.ContainsFunc(others, func(o *node) bool { return o == n }):
		case n.kind != kindElementwise || !Fusion():
			others = append(others, n)
		default:
			placed := false
			for i, g := range groups {
				if slices.Contains(g, n) {
					placed = true
				} else if slices.Equal(g[0].shape, n.shape) {
					groups[i] = append(g, n)
					placed = true
				}
				if placed {
					break
				}
			}
			if !placed {
				groups = append(groups, []*node{n})
			}
		}
	}
	for _, g := range groups {
		if err := d.runMultiOutput(g); err != nil {
			return err
		}
	}
	for _, n := range others {
		if err := d.realize(n); err != nil {
			return err
		}
	}
	if !wait {
		return nil
	}
	ns := make([]*node, len(ts))
	for i, t := range ts {
		ns[i] = t.n
	}
	return d.settle(ns...)
}

// runMultiOutput computes elementwise nodes of one shape in one kernel,
// splitting the group when it would bind more buffers than the device allows.
func (d *Device) runMultiOutput(g []*node) error {
	g = slices.DeleteFunc(slices.Clone(g), (*node).realized)
	switch len(g) {
	case 0:
		return nil
	case 1:
		return d.realize(g[0])
	}
	pb := d.newProgBuilder(g[0].shape, false)
	defer d.putProgBuilder(pb)
	for _, n := range g {
		pb.b.Output(pb.b.Cast(pb.build(n, contiguousView(n.shape)), n.dtype))
	}
	if pb.err != nil {
		return pb.err
	}
	if slices.ContainsFunc(g, (*node).realized) {
		// Building computed some of the results on their own (a program
		// past its instruction cap materializes what it reads): the
		// kernel must not compute them again into new blocks.
		return d.runMultiOutput(g)
	}
	if pb.bindings(len(g)) > d.maxBufs {
		half := len(g) / 2
		if err := d.runMultiOutput(g[:half]); err != nil {
			return err
		}
		return d.runMultiOutput(g[half:])
	}
	blocks := make([]*pool.Block, len(g))
	outs := make([]device.View, len(g))
	free := func() {
		for _, b := range blocks {
			if b != nil {
				d.pool.Free(b)
			}
		}
	}
	for i, n := range g {
		b, err := d.alloc(n.dtype, n.numel())
		if err != nil {
			free()
			return err
		}
		blocks[i] = b
		outs[i] = device.Contiguous(b.Buf, n.dtype, 0, n.shape)
	}
	k := device.ElementwiseKernel{Shape: g[0].shape, Inputs: pb.inputs, Program: pb.b.P, Outputs: outs}
	err := d.launch("elementwise", "elementwise", pb.ops, len(pb.inputs), len(g), func() error { return d.raw.Elementwise(&k) })
	if err != nil {
		free()
		return err
	}
	for i, n := range g {
		n.block = blocks[i]
		d.computed(n)
	}
	for _, n := range g {
		n.dropSources()
	}
	return nil
}
