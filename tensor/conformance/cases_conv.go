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
