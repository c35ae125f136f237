//go:build cgo && linux

package cuda

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Reduce runs k with kernels generated from its reduction and programs
// (see renderReduce and renderReduceBlock), after validating the kernel
// and checking that every buffer is a live buffer of this device. Kernels
// of one signature share a module per kernel kind. A kernel whose key
// (appendRdKey) was planned before reuses that plan once its buffers pass
// the checks that depend on them.
func (d *Device) Reduce(k *device.ReduceKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if k == nil {
		_, err := d.planRd(k)
		return err
	}
	d.planKey = appendRdKey(d.planKey[:0], k)
	return d.runPlan(d.planKey, func() (*kernelPlan, error) { return d.planRd(k) }, k.Inputs, k.EpilogueInputs, k.Outputs)
}

// planRd validates k, checks its buffers and returns its plan, compiling
// its module at first use.
func (d *Device) planRd(k *device.ReduceKernel) (*kernelPlan, error) {
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	if err := checkDTypes(k); err != nil {
		return nil, err
	}
	var views []device.View
	views = append(append(append(views, k.Inputs...), k.EpilogueInputs...), k.Outputs...)
	ptrs := make([]uint64, 0, len(views))
	for i, v := range views {
		b, err := d.own(v.Buf, fmt.Sprintf("reduce: view %d", i))
		if err != nil {
			return nil, err
		}
		ptrs = append(ptrs, uint64(b.ptr))
	}
	launches, err := planReduce(k, ptrs)
	if err != nil {
		return nil, err
	}
	_, _, l := rdPrograms(k)
	var launch func([]int64) error
	if len(launches) > 0 {
		// Every launch of a reduction has the same groups (rdBlocking), so
		// one module serves them all.
		m, err := d.reduceModule(k, launches[0][l.groups()] == 0)
		if err != nil {
			return nil, err
		}
		arg := isArgReduce(k.Op)
		launch = func(w []int64) error { return d.reduceLaunch(m, l, arg, w) }
	}
	at := wordRuns(l.inPtr(), l.nin, l.epPtr(), l.nep, l.outPtr(), l.nout)
	return newPlan(launches, launch, at, k.Inputs, k.EpilogueInputs, k.Outputs), nil
}

// reduceModule returns the module of k's serial kernel, or of its block
// kernel, compiling it at first use.
func (d *Device) reduceModule(k *device.ReduceKernel, serial bool) (*module, error) {
	if serial {
		return d.generated(rdSignature(k), func() string { return renderReduce(k) }, "reduce.cu", rdEntry)
	}
	return d.generated(rdBlockSignature(k), func() string { return renderReduceBlock(k) }, "reduce_block.cu", rdBlockEntry)
}

// reduceLaunch runs one launch of planReduce with the module of its
// kernel (reduceModule), of an arg reduction or not: the serial kernel,
// the block kernel, or the block kernel's two stages over a scratch
// buffer.
func (d *Device) reduceLaunch(m *module, l rdLayout, arg bool, w []int64) error {
	n, groups, parts := w[0], w[l.groups()], w[l.parts()]
	if groups == 0 {
		return d.reduceErr(d.launchWords(m, w))
	}
	if parts == 1 {
		return d.reduceErr(d.launchBlocks(m, d.tileGrid((n+groups-1)/groups), rdThreads, w))
	}
	return d.reduceSplit(m, l, w, arg)
}

// reduceSplit runs a split launch w of the block kernel m: stage rdPart
// writes each output's parts' partial results (values, and indices for an
// arg reduction) to a scratch buffer, then stage rdFold folds each
// output's parts and runs the epilogue. The scratch is freed in stream
// order.
func (d *Device) reduceSplit(m *module, l rdLayout, w []int64, arg bool) error {
	n, groups, parts := w[0], w[l.groups()], w[l.parts()]
	vals := (4*n*parts + 7) &^ 7
	bytes := vals
	if arg {
		bytes += 8 * n * parts
	}
	buf, err := d.Alloc(bytes)
	if err != nil {
		return fmt.Errorf("cuda: reduce: scratch: %w", err)
	}
	defer d.Free(buf)
	ptr := int64(buf.(*buffer).ptr)
	w = append([]int64(nil), w...)
	w[l.scratch()], w[l.scratch()+1] = ptr, ptr+vals
	if err := d.launchBlocks(m, d.tileGrid((n+groups-1)/groups*parts), rdThreads, w); err != nil {
		return d.reduceErr(err)
	}
	fold := rdRowGroups(int(parts))
	w[l.rn()], w[l.groups()], w[l.parts()], w[l.stage()] = parts, int64(fold), 1, rdFold
	return d.reduceErr(d.launchBlocks(m, d.tileGrid((n+int64(fold)-1)/int64(fold)), rdThreads, w))
}

// reduceErr wraps a failed reduction launch.
func (d *Device) reduceErr(err error) error {
	if err != nil {
		return fmt.Errorf("cuda: reduce: %w", err)
	}
	return nil
}
