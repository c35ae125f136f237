//go:build cgo && linux

package cuda

import "fmt"

import "github.com/shaderflow/shaderflow/tensor/device"

// runRows launches entry of the row kernel module source (a file on
// kernels/rows.cuh, one module an entry) over the validated views ins
// (named names) and out, with the kernel's argument word arg, after
// checking their buffers.
func (d *Device) runRows(kernel, entry string, source *fixedSource, ins []device.View, names []string, out device.View, arg int64) error {
	ptrs := make([]uint64, len(ins))
	for j, v := range ins {
		b, err := d.own(v.Buf, kernel+": "+names[j])
		if err != nil {
			return err
		}
		ptrs[j] = uint64(b.ptr)
	}
	ob, err := d.own(out.Buf, kernel+": Out")
	if err != nil {
		return err
	}
	launches := planRows(ins, out, arg, ptrs, uint64(ob.ptr))
	if len(launches) == 0 {
		return nil
	}
	m, err := d.fixedKernel(source, entry+".cu", entry)
	if err != nil {
		return err
	}
	for _, w := range launches {
		if err := d.launchBlocks(m, d.tileGrid(smGroups(w)), smBlock(w), w); err != nil {
			return fmt.Errorf("cuda: %s: %w", kernel, err)
		}
	}
	return nil
}
