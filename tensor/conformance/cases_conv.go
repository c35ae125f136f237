package conformance

import (
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// convCase is one convolution: input and weight shapes, bias or not, options.
type convCase struct {
	x, w []int
	bias bool
	opt  tensor.ConvOptions
}

func convName(c convCase) string {
	s := shapesName(c.x, c.w)
	if c.bias {
		s += "+bias"
	}
	o := c.opt
	if o.Stride != nil {
		s += ",stride=" + shapeName(o.Stride)
	}
	if o.Padding != nil {
		s += ",pad=" + shapeName(o.Padding)
	}
	if o.Dilation != nil {
		s += ",dil=" + shapeName(o.Dilation)
	}
	if o.Groups > 1 {
		s += ",groups=" + shapeName([]int{o.Groups})
	}
	return s
}

var convList = []convCase{
	{[]int{2, 3, 11}, []int{4, 3, 3}, true, tensor.ConvOptions{}},
	{[]int{2, 3, 11}, []int{4, 3, 3}, false, tensor.ConvOptions{Stride: []int{2}, Padding: []int{1}}},
	{[]int{1, 2, 13}, []int{3, 2, 3}, true, tensor.ConvOptions{Dilation: []int{3}, Padding: []int{2}}},
	{[]int{2, 4, 9}, []int{6, 2, 3}, true, tensor.ConvOptions{Groups: 2}},
	{[]int{2, 3, 9, 8}, []int{5, 3, 3, 2}, true, tensor.ConvOptions{Stride: []int{2, 1}, Padding: []int{1, 0}}},
	{[]int{1, 3, 7, 7}, []int{3, 1, 3, 3}, false, tensor.ConvOptions{Padding: []int{1}, Groups: 3}},
	{[]int{2, 2, 10, 9}, []int{4, 2, 3, 3}, true, tensor.ConvOptions{Dilation: []int{2}, Stride: []int{2}}},
	{[]int{3, 5, 6, 7}, []int{8, 5, 1, 1}, true, tensor.ConvOptions{}},
	{[]int{1, 4, 5, 5}, []int{6, 2, 5, 5}, true, tensor.ConvOptions{Padding: []int{2}, Groups: 2}},
	{[]int{1, 2, 5, 6, 4}, []int{3, 2, 2, 3, 2}, true, tensor.ConvOptions{Padding: []int{1}}},
	{[]int{2, 2, 6, 5, 5}, []int{2, 1, 3, 3, 3}, false, tensor.ConvOptions{Stride: []int{2}, Padding: []int{1, 0, 1}, Groups: 2}},
}

// convDev runs Conv1d, Conv2d or Conv3d by the input's rank.
func convDev(x, w, b *tensor.Tensor, opt tensor.ConvOptions) *tensor.Tensor {
	switch x.Dim() {
	case 3:
		return x.Conv1d(w, b, opt)
	case 4:
		return x.Conv2d(w, b, opt)
	}
	return x.Conv3d(w, b, opt)
}

func convCases() []testCase {
	var cs []testCase
	for i, c := range convList {
		layouts := []layout{contiguous, transposed}
		if i == 0 || i == 4 || i == 9 { // the first of each rank: every layout
			layouts = allLayouts
		}
		for _, l := range layouts {
			cs = append(cs, testCase{name: caseName("conv", "float32", convName(c), l.name), run: func(e *env) {
				x := e.input(tensor.Float32, normal, l, c.x...)
				w := e.input(tensor.Float32, normal, contiguous, c.w...)
				var bt *tensor.Tensor
				var br *ref.Array
				if c.bias {
					b := e.randn(c.w[0])
					bt, br = b.T, b.R
				}
				ro := ref.ConvOptions{Stride: c.opt.Stride, Padding: c.opt.Padding, Dilation: c.opt.Dilation, Groups: c.opt.Groups}
				want := ref.Conv(x.R, w.R, br, ro)
				taps := numElements(c.w[1:])
				sq := ref.Conv(ref.Mul(x.R, x.R), ref.Mul(w.R, w.R), nil, ro)
				e.expect("Conv", tensor.Float32, want, sumTol(1e-5, taps, sq), func() *tensor.Tensor { return convDev(x.T, w.T, bt, c.opt) })
			}})
		}
	}
	cs = append(cs, largeConvCases()...)
	cs = append(cs, testCase{name: caseName("conv", "float32", "weight_transposed"), run: func(e *env) {
		x := e.randn(2, 3, 6, 6)
		w := e.input(tensor.Float32, normal, transposed, 4, 3, 3, 3)
		want := ref.Conv(x.R, w.R, nil, ref.ConvOptions{Padding: []int{1}})
		sq := ref.Conv(ref.Mul(x.R, x.R), ref.Mul(w.R, w.R), nil, ref.ConvOptions{Padding: []int{1}})
		e.expect("Conv2d", tensor.Float32, want, sumTol(1e-5, 27, sq), func() *tensor.Tensor {
			return x.T.Conv2d(w.T, nil, tensor.ConvOptions{Padding: []int{1}})
		})
	}})
	return cs
}

// largeConvs span several 64x64 tiles of the GPU kernels' implicit products
// in every mode (rows, columns and depth), one dense and one grouped,
// strided and dilated, the latter over a transposed input.
var largeConvs = []struct {
	c convCase
	l layout
}{
	{convCase{[]int{3, 70, 13, 11}, []int{67, 70, 3, 3}, false, tensor.ConvOptions{Padding: []int{1}}}, contiguous},
	{convCase{[]int{2, 66, 17, 12}, []int{70, 33, 3, 2}, false,
		tensor.ConvOptions{Stride: []int{2, 1}, Padding: []int{1}, Dilation: []int{1, 2}, Groups: 2}}, transposed},
}

// largeConvCases check the forward result and both gradients (the
// backward-input and backward-weight products) of largeConvs against
// ref.ConvGrads: finite differences would cost a reference convolution per
// input element.
func largeConvCases() []testCase {
	var cs []testCase
	for _, lc := range largeConvs {
		c := lc.c
		cs = append(cs, testCase{name: caseName("conv_grads", "float32", convName(c), lc.l.name), large: true, run: func(e *env) {
			x := e.input(tensor.Float32, normal, lc.l, c.x...)
			w := e.randn(c.w...)
			x.T.SetRequiresGrad(true)
			w.T.SetRequiresGrad(true)
			ro := ref.ConvOptions{Stride: c.opt.Stride, Padding: c.opt.Padding, Dilation: c.opt.Dilation, Groups: c.opt.Groups}
			sq := func(a *ref.Array) *ref.Array { return ref.Mul(a, a) }
			want := ref.Conv(x.R, w.R, nil, ro)
			y := convDev(x.T, w.T, nil, c.opt)
			taps := numElements(c.w[1:])
			e.compare("Conv", y, tensor.Float32, want, sumTol(1e-5, taps, ref.Conv(sq(x.R), sq(w.R), nil, ro)))
			dy := e.randn(want.Shape()...)
			e.noErr(y.Mul(dy.T).Sum().Backward(), "Backward")
			dx, dw := ref.ConvGrads(x.R, w.R, dy.R, ro)
			dxSq, dwSq := ref.ConvGrads(sq(x.R), sq(w.R), sq(dy.R), ro)
			outChannels := c.w[0] / max(c.opt.Groups, 1)
			e.compare("Conv gradient of the input", x.T.Grad(), tensor.Float32, dx, sumTol(1e-5, outChannels*numElements(c.w[2:]), dxSq))
			e.compare("Conv gradient of the weight", w.T.Grad(), tensor.Float32, dw, sumTol(1e-5, numElements(want.Shape())/c.w[0], dwSq))
		}})
	}
	return cs
}
