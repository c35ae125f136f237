//go:build cgo && linux

package cuda

/*
#include "native.h"
*/
import "C"

import (
	_ "embed"
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// copySource is the copy kernel's CUDA C.
//
//go:embed kernels/copy.cu
var copySource string

// copyModule is the copy kernel's module.
var copyModule = newFixedSource(func() string { return copySource })

// copyBlock is the copy kernel's block size.
const copyBlock = 256

// copyParamsBytes is the host size of sf_copy_params, which the device's
// parameter (232 bytes in clang's PTX) must equal.
const copyParamsBytes = C.sizeof_sf_copy_params

// Copy copies k.Src into k.Dst with the copy kernel, after validating the
// kernel and checking that both buffers are live buffers of this device.
func (d *Device) Copy(k *device.CopyKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	if err := checkDTypes(k); err != nil {
		return err
	}
	dst, err := d.own(k.Dst.Buf, "copy: Dst")
	if err != nil {
		return err
	}
	src, err := d.own(k.Src.Buf, "copy: Src")
	if err != nil {
		return err
	}
	launches := planCopy(k.Dst, k.Src)
	if len(launches) == 0 {
		return nil
	}
	m, err := d.fixedKernel(copyModule, "copy.cu", "sf_copy")
	if err != nil {
		return err
	}
	for _, l := range launches {
		p := C.sf_copy_params{
			n: C.longlong(l.N), rank: C.longlong(len(l.Shape)), elem: C.longlong(l.Elem),
			dst_off: C.longlong(l.DstOff), src_off: C.longlong(l.SrcOff),
		}
		for i := range l.Shape {
			p.shape[i] = C.longlong(l.Shape[i])
			p.dst_stride[i] = C.longlong(l.DstStr[i])
			p.src_stride[i] = C.longlong(l.SrcStr[i])
		}
		grid := d.copyGrid(l.N)
		st := C.sf_cu_launch_copy(d.drv.api, d.ctx, m.fn, C.uint(grid), copyBlock, dst.ptr, src.ptr, &p)
		if err := d.note(d.drv.check(st)); err != nil {
			return fmt.Errorf("cuda: copy: %w", err)
		}
	}
	return nil
}

// copyGrid returns the blocks of a copy of n elements: enough for one
// element a thread, capped at the device's grid limit and at 65536 blocks
// (the kernel's grid-stride loop covers the rest).
func (d *Device) copyGrid(n int64) int {
	g := (n + copyBlock - 1) / copyBlock
	g = min(g, 1<<16, int64(max(1, d.info.Limits.MaxWorkgroups[0])))
	return int(max(g, 1))
}
