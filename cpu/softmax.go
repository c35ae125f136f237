package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
	"runtime"
)

// softmaxCost is a row element's work for the parallel split: a maximum, an
// exponential and a scaling.
const softmaxCost = 8

// softmaxNow runs k one row at a time (vec.SoftmaxRow or vec.LogSoftmaxRow),
// rows split over the workers.
func (d *Device) softmaxNow(k *device.SoftmaxKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	if err := k.Validate(); err != nil {
		return err
	}
	row := vec.SoftmaxRow
	if k.Log {
		row = vec.LogSoftmaxRow
	}
	return d.forRows(k.Out, []device.View{k.In}, func(dst []float32, in [][]float32) { row(dst, in[0]) })
}

// softmaxBackwardNow runs k one row at a time: y·(g − Σ g·y), or for
// log-softmax g − exp(y)·Σ g, the sums accumulated in float64.
func (d *Device) softmaxBackwardNow(k *device.SoftmaxBackwardKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	if err := k.Validate(); err != nil {
		return err
	}
	if k.Log {
		return d.forRows(k.Out, []device.View{k.Y, k.G}, func(dst []float32, in [][]float32) {
			y, g := in[0], in[1]
			vec.Exp(dst, y)
			vec.MulScalar(dst, dst, float32(vec.Sum(g)))
			vec.Sub(dst, g, dst)
		})
	}
	return d.forRows(k.Out, []device.View{k.Y, k.G}, func(dst []float32, in [][]float32) {
		y, g := in[0], in[1]
		vec.SubScalar(dst, g, float32(vec.Dot(g, y)))
		vec.Mul(dst, dst, y)
	})
}

// forRows runs f on every row (along the last dimension) of the Float32
// views ins, which share out's shape, writing out's row dst; rows are split
// over the workers; at most two views. A view's row is passed in place when its elements are
// adjacent and gathered into the worker's scratch otherwise.
func (d *Device) forRows(out device.View, ins []device.View, f func(dst []float32, in [][]float32)) error {
	if len(ins) > 2 {
		panic("cpu: forRows reads at most two views")
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	outb, err := d.data(out.Buf)
	if err != nil {
		return err
	}
	data := make([][]float32, len(ins))
	for i, v := range ins {
		b, err := d.data(v.Buf)
		if err != nil {
			return err
		}
		data[i] = asF32(b)
	}
	dstAll := asF32(outb)
	shape := out.Shape
	last := len(shape) - 1
	cols := shape[last]
	rows := device.NumElements(shape) / cols
	body := func(ws *workspace, lo, hi int) {
		var rowIn [2][]float32
		in := rowIn[:len(ins)]
		for r := lo; r < hi; r++ {
			for i, v := range ins {
				base := v.Offset
				for a, q := last-1, r; a >= 0; a-- {
					base += q % shape[a] * v.Strides[a]
					q /= shape[a]
				}
				if step := v.Strides[last]; step != 1 {
					buf := &ws.tmp
					if i > 0 {
						buf = &ws.col
					}
					*buf = grow(*buf, cols)
					for j := range cols {
						(*buf)[j] = data[i][base+j*step]
					}
					in[i] = *buf
					continue
				}
				in[i] = data[i][base : base+cols]
			}
			f(dstAll[out.Offset+r*cols:out.Offset+(r+1)*cols], in)
		}
	}
	if d.serial(rows*cols, softmaxCost) {
		return safely(func() { body(d.ws[0], 0, rows) })
	}
	return d.parallelFor(rows, d.grainFor(rows, cols*softmaxCost), func(w, lo, hi int) { body(d.ws[w], lo, hi) })
}
