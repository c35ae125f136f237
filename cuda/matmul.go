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
// parameters.
func (d *Device) MatMul(k *device.MatMulKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	var views []device.View
	views = append(append(append(views, k.A, k.B), k.EpilogueInputs...), k.Outputs...)
	ptrs := make([]uint64, 0, len(views))
	for i, v := range views {
		b, err := d.own(v.Buf, fmt.Sprintf("matmul: view %d", i))
		if err != nil {
			return err
		}
		ptrs = append(ptrs, uint64(b.ptr))
	}
	if g, ok := planBLAS(k); ok && d.blasUse.useBLAS(k) {
		if h := d.blas(); h != nil {
			return d.matMulBLAS(k, g, h, ptrs)
		}
	}
	launches, err := planMatMul(k, ptrs)
	if err != nil || len(launches) == 0 {
		return err
	}
	m, err := d.generated(mmSignature(k), func() string { return renderMatMul(k) }, "matmul.cu", mmEntry)
	if err != nil {
		return err
	}
	for _, w := range launches {
		if err := d.launchBlocks(m, d.tileGrid(w[0]), mmThreads, w); err != nil {
			return fmt.Errorf("cuda: matmul: %w", err)
		}
	}
	return nil
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
