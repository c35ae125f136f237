package tensor

import (
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// PyTorch's ceil_mode for max and average pooling. The device kernel knows
// only the floor rule, so the input is padded on the right (with -Inf for
// max, zeros for average) until the floor rule gives the ceil-mode size, and
// the average is rescaled to PyTorch's divisor, which counts only the taps
// inside the input and its declared padding.

// ceilOutSize returns the ceil-mode output size along dimension i of g,
// whose Out[i] holds the floor-mode size: PyTorch's pooling_output_shape.
func ceilOutSize(g device.ConvGeometry, i int) int {
	in, s, p := g.In[i], g.Stride[i], g.Padding[i]
	out := g.Out[i] // (in+2p-span)/s + 1, whose terms convOutSize checked
	if (in+2*p-g.Dilation[i]*(g.Kernel[i]-1)-1)%s != 0 {
		out++
	}
	// (out-1)·s >= in+p, written without the product: the last window
	// would start in the right padding.
	if out-1 > (in+p-1)/s {
		out--
	}
	return out
}

// ceilPool records a pooling op of a's ceil-mode geometry over t.
func ceilPool(op gradOp, a poolAttrs, t *Tensor) *Tensor {
	g := a.geom
	x := t.asFloat32()
	fill := math.Inf(-1)
	if a.op == device.PoolAvg {
		fill = 0
	}
	padded := a
	padded.geom.In = slices.Clone(g.In)
	grown := false
	for i := range g.In {
		extra := (g.Out[i]-1)*g.Stride[i] + g.Dilation[i]*(g.Kernel[i]-1) + 1 - 2*g.Padding[i] - g.In[i]
		if extra <= 0 {
			continue
		}
		shape := x.Shape()
		shape[2+i] = extra
		x = Cat(2+i, x, Full(t.Device(), fill, shape...))
		padded.geom.In[i] += extra
		grown = true
	}
	if !grown || a.op == device.PoolMax {
		return poolForward(op, padded, x)
	}
	// Every window of the padded input lies inside its padding, so the
	// kernel's count-including-padding average divides by the whole window.
	padded.includePad = true
	return poolForward(op, padded, x).Mul(avgRescale(t.Device(), g, a.includePad))
}

// avgRescale returns, for each output position of g, the whole window's
// size over PyTorch's divisor: the taps within [-padding, in+padding) with
// includePad, else within [0, in). Its shape [1, 1, out...] broadcasts.
func avgRescale(d *Device, g device.ConvGeometry, includePad bool) *Tensor {
	whole := 1
	counts := make([][]int, len(g.In))
	for i := range g.In {
		whole *= g.Kernel[i]
		lo, hi := 0, g.In[i]
		if includePad {
			lo, hi = -g.Padding[i], g.In[i]+g.Padding[i]
		}
		counts[i] = make([]int, g.Out[i])
		for o := range counts[i] {
			for k := range g.Kernel[i] {
				if at := o*g.Stride[i] - g.Padding[i] + k*g.Dilation[i]; at >= lo && at < hi {
					counts[i][o]++
				}
			}
		}
	}
	vals := make([]float32, 0, device.NumElements(g.Out))
	var fill func(dim, n int)
	fill = func(dim, n int) {
		if dim == len(g.Out) {
			vals = append(vals, float32(float64(whole)/float64(n)))
			return
		}
		for _, c := range counts[dim] {
			fill(dim+1, n*c)
		}
	}
	fill(0, 1)
	return FromFloat32s(d, vals, append([]int{1, 1}, g.Out...)...)
}
