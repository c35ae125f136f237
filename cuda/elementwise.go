//go:build cgo && linux

package cuda

/*
#include "native.h"
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// ewBlock is the generated elementwise kernel's block size.
const ewBlock = 256

// Elementwise runs k's program with a kernel generated from it (see
// renderElementwise), after validating the kernel and checking that every
// buffer is a live buffer of this device. Kernels of one signature share a
// module: the shapes, strides, offsets, constants and seeds are launch
// parameters. A kernel whose key (appendEwKey) was planned before reuses
// that plan once its buffers pass the checks that depend on them.
func (d *Device) Elementwise(k *device.ElementwiseKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if k == nil {
		_, err := d.planEw(k)
		return err
	}
	d.planKey = appendEwKey(d.planKey[:0], k)
	return d.runPlan(d.planKey, func() (*kernelPlan, error) { return d.planEw(k) }, k.Inputs, k.Outputs)
}

// planEw validates k, checks its buffers and returns its plan, compiling
// its module at first use.
func (d *Device) planEw(k *device.ElementwiseKernel) (*kernelPlan, error) {
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	if err := checkDTypes(k); err != nil {
		return nil, err
	}
	ptrs := make([]uint64, 0, len(k.Inputs)+len(k.Outputs))
	for i, v := range append(append([]device.View{}, k.Inputs...), k.Outputs...) {
		b, err := d.own(v.Buf, fmt.Sprintf("elementwise: view %d", i))
		if err != nil {
			return nil, err
		}
		ptrs = append(ptrs, uint64(b.ptr))
	}
	launches, err := planElementwise(k, ptrs)
	if err != nil {
		return nil, err
	}
	var launch func([]int64) error
	if len(launches) > 0 {
		m, err := d.elementwiseModule(k)
		if err != nil {
			return nil, err
		}
		launch = func(w []int64) error {
			if err := d.launchBlocks(m, d.ewGrid(w), ewBlock, w); err != nil {
				return fmt.Errorf("cuda: elementwise: %w", err)
			}
			return nil
		}
	}
	_, nimm := immSlots(k.Program)
	l := ewLayout{nin: len(k.Inputs), nout: len(k.Outputs), nimm: nimm}
	return newPlan(launches, launch, wordRuns(l.inPtr(), l.nin, l.outPtr(), l.nout), k.Inputs, k.Outputs), nil
}

// ewGrid returns the blocks of an elementwise launch with words w: as for
// a copy of w[0] elements, except that a launch of fewer than 2^31
// positions (the kernel's 32-bit loops) takes ewUnroll positions a thread.
func (d *Device) ewGrid(w []int64) int {
	if w[0] <= math.MaxInt32 {
		return d.copyGrid((w[0] + ewUnroll - 1) / ewUnroll)
	}
	return d.copyGrid(w[0])
}

// launchWords launches m's kernel over w[0] positions (a generated kernel's
// n) with the parameter words w.
func (d *Device) launchWords(m *module, w []int64) error {
	st := C.sf_cu_launch(d.drv.api, d.ctx, m.fn, C.uint(d.copyGrid(w[0])), ewBlock, unsafe.Pointer(&w[0]), C.size_t(8*len(w)))
	return d.note(d.drv.check(st))
}

// elementwiseModule returns the module of k's signature, rendering and
// compiling it at first use.
func (d *Device) elementwiseModule(k *device.ElementwiseKernel) (*module, error) {
	return d.generated(ewSignature(k), func() string { return renderElementwise(k) }, "elementwise.cu", ewEntry)
}
