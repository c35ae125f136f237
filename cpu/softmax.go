package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// softmaxCost is a row element's work for the parallel split: a maximum, an
// exponential and a scaling.
const softmaxCost = 8

// Softmax runs k one row at a time (vec.SoftmaxRow or vec.LogSoftmaxRow on
// the row, read in place when its elements are adjacent and gathered into
// the worker's scratch otherwise), rows split over the workers.
func (d *Device) Softmax(k *device.SoftmaxKernel) error {
	if err := k.Validate(); err != nil {
		return err
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	inb, err := d.data(k.In.Buf)
	if err != nil {
		return err
	}
	outb, err := d.data(k.Out.Buf)
	if err != nil {
		return err
	}
	in, out := asF32(inb), asF32(outb)
	shape, strides := k.In.Shape, k.In.Strides
	last := len(shape) - 1
	cols, step := shape[last], strides[last]
	rows := device.NumElements(shape) / cols
	row := vec.SoftmaxRow
	if k.Log {
		row = vec.LogSoftmaxRow
	}
	body := func(ws *workspace, lo, hi int) {
		for r := lo; r < hi; r++ {
			base := k.In.Offset
			for i, q := last-1, r; i >= 0; i-- {
				base += q % shape[i] * strides[i]
				q /= shape[i]
			}
			dst := out[k.Out.Offset+r*cols : k.Out.Offset+(r+1)*cols]
			if step == 1 {
				row(dst, in[base:base+cols])
				continue
			}
			ws.tmp = grow(ws.tmp, cols)
			for j := range cols {
				ws.tmp[j] = in[base+j*step]
			}
			row(dst, ws.tmp)
		}
	}
	if d.serial(rows*cols, softmaxCost) {
		return safely(func() { body(d.ws[0], 0, rows) })
	}
	return d.parallelFor(rows, d.grainFor(rows, cols*softmaxCost), func(w, lo, hi int) { body(d.ws[w], lo, hi) })
}
