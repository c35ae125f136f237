//go:build cgo && linux

package cuda

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

var (
	_ device.RowSoftmaxer     = (*Device)(nil)
	_ device.RowSoftmaxGrader = (*Device)(nil)
)

// Softmax runs k with kernels/softmax.cu's one-pass row kernel, after
// validating the kernel and checking that both buffers are live buffers of
// this device: each row is read from global memory once (twice for rows
// longer than 16384 elements) and written once.
func (d *Device) Softmax(k *device.SoftmaxKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	return d.runSoftmax("softmax", smEntry, []device.View{k.In}, []string{"In"}, k.Out, k.Log)
}

// SoftmaxBackward runs k with kernels/softmax.cu's one-pass gradient row
// kernel, after validating the kernel and checking that every buffer is a
// live buffer of this device: each row of Y and G is read once (twice for
// rows longer than 16384 elements) and Out written once.
func (d *Device) SoftmaxBackward(k *device.SoftmaxBackwardKernel) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	return d.runSoftmax("softmax backward", smBackwardEntry, []device.View{k.Y, k.G}, []string{"Y", "G"}, k.Out, k.Log)
}

// runSoftmax launches entry of kernels/softmax.cu over the validated views
// ins (named names) and out, after checking their buffers.
func (d *Device) runSoftmax(kernel, entry string, ins []device.View, names []string, out device.View, log bool) error {
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
	launches := planSoftmax(ins, out, log, ptrs, uint64(ob.ptr))
	if len(launches) == 0 {
		return nil
	}
	// Modules are cached by source, so each entry point gets its own
	// source: the file behind a line naming the entry.
	m, err := d.kernel("// "+entry+"\n"+softmaxModuleSource(), "softmax.cu", entry)
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
