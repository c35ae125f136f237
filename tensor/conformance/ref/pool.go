package ref

import (
	"fmt"
	"math"
)

// PoolOptions are the geometry of a pooling window over the spatial
// dimensions; lists broadcast like ConvOptions and a nil Stride means Kernel.
// CountExcludePad leaves padded positions out of an average's divisor
// (PyTorch's count_include_pad=False).
type PoolOptions struct {
	Kernel, Stride, Padding, Dilation []int
	CountExcludePad                   bool
}

func (opt PoolOptions) geometry(op string, x *Array) geometry {
	if x.Dim() < 3 {
		panic(fmt.Sprintf("ref.%s: input %v needs [N, C, spatial...]", op, x.shape))
	}
	nd := x.Dim() - 2
	kernel := perDim(op, "kernel", opt.Kernel, 0, nd)
	stride := opt.Stride
	if len(stride) == 0 {
		stride = kernel
	}
	for _, k := range kernel {
		if k < 1 {
			panic(fmt.Sprintf("ref.%s: bad kernel %v", op, opt.Kernel))
		}
	}
	return newGeometry(op, x.shape[2:], kernel, stride, opt.Padding, opt.Dilation)
}

// pool runs f over the in-bounds values of every window and the window's
// size including padding.
func pool(op string, x *Array, g geometry, f func(vals []float64, windowSize int) float64) *Array {
	n, c := x.shape[0], x.shape[1]
	xc := x.Contiguous()
	spatialIn := numElements(g.in)
	outShape := append([]int{n, c}, g.out...)
	out := make([]float64, 0, numElements(outShape))
	pos := make([]int, len(g.in))
	var vals []float64
	forEachIndex(outShape, func(idx []int) {
		vals = vals[:0]
		base := (idx[0]*c + idx[1]) * spatialIn
		forEachIndex(g.kernel, func(k []int) {
			if g.inputPos(idx[2:], k, pos) {
				vals = append(vals, xc.data[base+flatIndex(pos, g.in)])
			}
		})
		out = append(out, f(vals, numElements(g.kernel)))
	})
	return New(out, outShape...)
}

// MaxPool is max pooling over the spatial dimensions of x [N, C, in...];
// padding never wins and NaN propagates.
func MaxPool(x *Array, opt PoolOptions) *Array {
	g := opt.geometry("MaxPool", x)
	return pool("MaxPool", x, g, func(v []float64, _ int) float64 {
		m := math.Inf(-1)
		for _, y := range v {
			m = maxNaN(m, y)
		}
		return m
	})
}

// AvgPool is average pooling; the divisor counts padded positions unless
// opt.CountExcludePad is set.
func AvgPool(x *Array, opt PoolOptions) *Array {
	g := opt.geometry("AvgPool", x)
	return pool("AvgPool", x, g, func(v []float64, size int) float64 {
		if opt.CountExcludePad {
			size = len(v)
		}
		return sum(v) / float64(size)
	})
}

// AdaptiveAvgPool averages x [N, C, in...] into the spatial size out, output
// position i of a dimension covering inputs [floor(i*in/out), ceil((i+1)*in/out)).
func AdaptiveAvgPool(x *Array, out ...int) *Array {
	if x.Dim() != len(out)+2 {
		panic(fmt.Sprintf("ref.AdaptiveAvgPool: input %v for output size %v", x.shape, out))
	}
	n, c, in := x.shape[0], x.shape[1], x.shape[2:]
	xc := x.Contiguous()
	spatialIn := numElements(in)
	outShape := append([]int{n, c}, out...)
	res := make([]float64, 0, numElements(outShape))
	lo, size := make([]int, len(out)), make([]int, len(out))
	pos := make([]int, len(out))
	forEachIndex(outShape, func(idx []int) {
		for d, i := range idx[2:] {
			lo[d] = i * in[d] / out[d]
			size[d] = ((i+1)*in[d]+out[d]-1)/out[d] - lo[d]
		}
		s := 0.0
		forEachIndex(size, func(k []int) {
			for d := range k {
				pos[d] = lo[d] + k[d]
			}
			s += xc.data[(idx[0]*c+idx[1])*spatialIn+flatIndex(pos, in)]
		})
		res = append(res, s/float64(numElements(size)))
	})
	return New(res, outShape...)
}
