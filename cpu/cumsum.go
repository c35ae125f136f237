package cpu

import (
	"math"
	"runtime"

	"github.com/shaderflow/shaderflow/tensor/device"
)

var _ device.Cumsummer = (*Device)(nil)

// cumsumNow writes the running sums of each line of k.X into k.Out, lines in
// parallel; Float32 lines are accumulated in float64, as PyTorch's CPU
// kernel does.
func (d *Device) cumsumNow(k *device.CumsumKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	bufs, err := d.begin(k.Validate, k.X.Buf, k.Out.Buf)
	if err != nil {
		return err
	}
	defer d.mu.Unlock()
	xb, ob := bufs[0], bufs[1]
	n := k.X.Shape[len(k.X.Shape)-1]
	lines := device.NumElements(k.X.Shape) / max(n, 1)
	if n == 0 || lines == 0 {
		return nil
	}
	step := k.X.Strides[len(k.X.Strides)-1]
	var line func(base, o int)
	switch k.X.DType {
	case device.Float32:
		x, out := asF32(xb), asF32(ob)
		line = func(base, o int) {
			acc := 0.0
			for j := range n {
				acc += float64(x[base+j*step])
				out[o+j] = float32(acc)
			}
		}
	case device.Float64:
		x, out := asU64(xb), asU64(ob)
		line = func(base, o int) {
			acc := 0.0
			for j := range n {
				acc += math.Float64frombits(x[base+j*step])
				out[o+j] = math.Float64bits(acc)
			}
		}
	case device.Int32:
		x, out := asI32(xb), asI32(ob)
		line = func(base, o int) { runningSum(out[o:o+n], x, base, step) }
	default: // Int64
		x, out := asU64(xb), asU64(ob)
		line = func(base, o int) { runningSum(out[o:o+n], x, base, step) }
	}
	return d.runTasks(lines, n, func(_ *workspace, l int) {
		line(lineStart(k.X, l), k.Out.Offset+l*n)
	})
}

// runningSum writes the running sums of x[base], x[base+step], … into out,
// wrapping as T does.
func runningSum[T int32 | uint64](out, x []T, base, step int) {
	var acc T
	for j := range out {
		acc += x[base+j*step]
		out[j] = acc
	}
}
