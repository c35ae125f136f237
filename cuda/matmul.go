//go:build cgo && linux

package cuda

/*
#include "native.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// MatMul runs k, after validating the kernel and checking that every
// buffer is a live buffer of this device: with cuBLAS where it is loaded
// and can express the operands (planBLAS; the epilogue then runs as an
// elementwise kernel), else with a tiled matrix product kernel generated
// from its epilogue (see renderMatMul). Products of one signature share a
// module: shapes, strides, offsets, addresses and constants are launch
// parameters. A product on the generated kernel whose key (appendMmKey)
// was planned before reuses that plan once its buffers pass the checks
// that depend on them.
func (d *Device) MatMul(k *device.MatMulKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if k == nil {
		_, err := d.planMm(k)
		return err
	}
	d.planKey = appendMmKey(d.planKey[:0], k, d.blasUse)
	ab := [2]device.View{k.A, k.B}
	return d.runPlan(d.planKey, func() (*kernelPlan, error) { return d.planMm(k) }, ab[:], k.EpilogueInputs, k.Outputs)
}

// planMm validates k and checks its buffers; it runs a product that goes
// to cuBLAS itself and returns no plan, else it returns the generated
// kernel's plan, compiling its module at first use. Only products that
// the cuBLAS policy keeps on the generated kernel get a plan, so that a
// cached plan never stands for a product that cuBLAS would compute.
func (d *Device) planMm(k *device.MatMulKernel) (*kernelPlan, error) {
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	var views []device.View
	views = append(append(append(views, k.A, k.B), k.EpilogueInputs...), k.Outputs...)
	ptrs := make([]uint64, 0, len(views))
	for i, v := range views {
		b, err := d.own(v.Buf, fmt.Sprintf("matmul: view %d", i))
		if err != nil {
			return nil, err
		}
		ptrs = append(ptrs, uint64(b.ptr))
	}
	g, ok := planBLAS(k)
	wantBLAS := ok && d.blasUse.useBLAS(k)
	if wantBLAS {
		if h := d.blas(); h != nil {
			return nil, d.matMulBLAS(k, g, h, ptrs)
		}
	}
	launches, err := planMatMul(k, ptrs)
	if err != nil {
		return nil, err
	}
	var launch func([]int64) error
	if len(launches) > 0 {
		m, err := d.generated(mmSignature(k), func() string { return renderMatMul(k) }, "matmul.cu", mmEntry)
		if err != nil {
			return nil, err
		}
		launch = func(w []int64) error {
			if err := d.launchBlocks(m, d.tileGrid(w[0]), mmThreads, w); err != nil {
				return fmt.Errorf("cuda: matmul: %w", err)
			}
			return nil
		}
	}
	l := mmLayoutOf(k)
	p := newPlan(launches, launch, wordRuns(l.a(), 1, l.b(), 1, l.epPtr(), l.nep, l.outPtr(), l.nout), []device.View{k.A, k.B}, k.EpilogueInputs, k.Outputs)
	if wantBLAS {
		return nil, p.run()
	}
	return p, nil
}

// launchBlocks launches m's kernel on grid blocks of block threads with
// the parameter words w.
func (d *Device) launchBlocks(m *module, grid, block int, w []int64) error {
	st := C.sf_cu_launch(d.drv.api, d.ctx, m.fn, C.uint(grid), C.uint(block), unsafe.Pointer(&w[0]), C.size_t(8*len(w)))
	return d.note(d.drv.check(st))
}

// tileGrid returns the blocks of a launch over n tiles, one a block: n,
// capped at the device's grid limit and at 65536 blocks (the kernel loops
// over the rest).
func (d *Device) tileGrid(n int64) int {
	return int(max(min(n, 1<<16, int64(max(1, d.info.Limits.MaxWorkgroups[0]))), 1))
}
