package gpu

import "github.com/shaderflow/shaderflow/tensor/device"

// Window geometry words (window.wgsl): In, Kernel, Out, Stride, Padding,
// Dilation, three words each, from word 16.
const (
	geomWords   = 18
	spatialDims = 3
)

// putGeometry writes the geometry padded to three spatial dimensions; it
// must be the first thing after the header. Nil lists (adaptive pooling)
// read as kernel 1, stride 1, padding 0, dilation 1.
func (e *encoder) putGeometry(g device.ConvGeometry) {
	if e.here() != hHeader {
		panic("gpu: geometry must follow the header")
	}
	for _, f := range []struct {
		v   []int
		def int
	}{{g.In, 1}, {g.Kernel, 1}, {g.Out, 1}, {g.Stride, 1}, {g.Padding, 0}, {g.Dilation, 1}} {
		for d := range spatialDims {
			v := f.def
			if d < len(f.v) {
				v = f.v[d]
			}
			e.put(e.count(v))
		}
	}
}

// view5 appends the descriptor of a [N, C, spatial...] view padded to
// three spatial dimensions (stride 0 for the padding).
func (e *encoder) view5(v device.View) int {
	st := make([]int, 2+spatialDims)
	copy(st, v.Strides)
	return e.view(v, st, false)
}
