package conformance

import (
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// zeroStrideConvs cover the CPU convolution's read paths over an input
// expanded along its channel or a spatial dimension: whole-image tap
// blocks (2-D, stride one along rows), row blocks (3-D), strided runs,
// the 1×1 direct path and the direct 3×3 kernel.
var zeroStrideConvs = []convCase{
	{[]int{1, 1, 3, 4}, []int{1, 1, 1, 2}, false, tensor.ConvOptions{}},
	{[]int{2, 3, 11}, []int{4, 3, 3}, true, tensor.ConvOptions{}},
	{[]int{2, 3, 9, 8}, []int{5, 3, 3, 2}, true, tensor.ConvOptions{Stride: []int{2, 1}, Padding: []int{1, 0}}},
	{[]int{1, 2, 6, 7}, []int{3, 2, 3, 3}, false, tensor.ConvOptions{}},
	{[]int{3, 5, 6, 7}, []int{8, 5, 1, 1}, true, tensor.ConvOptions{}},
	{[]int{1, 2, 5, 6, 4}, []int{3, 2, 2, 3, 2}, true, tensor.ConvOptions{Padding: []int{1}}},
	{[]int{1, 1, 3, 4, 4}, []int{1, 1, 1, 1, 2}, false, tensor.ConvOptions{}},
}

// zeroStrideCases check convolution (forward and both gradients) and pooling
// (forward and backward) over inputs with a zero stride in every dimension
// but the batch, and the gradients of convolutions over strided views.
func zeroStrideCases() []testCase {
	var cs []testCase
	for _, c := range zeroStrideConvs {
		ro := ref.ConvOptions{Stride: c.opt.Stride, Padding: c.opt.Padding, Dilation: c.opt.Dilation, Groups: c.opt.Groups}
		for axis := 1; axis < len(c.x); axis++ {
			l := expandedAt(axis)
			if !l.ok(c.x) {
				continue
			}
			cs = append(cs, testCase{name: caseName("conv", "float32", convName(c), l.name), run: func(e *env) {
				x := e.input(tensor.Float32, normal, l, c.x...)
				w := e.randn(c.w...)
				want := ref.Conv(x.R, w.R, nil, ro)
				sq := ref.Conv(ref.Mul(x.R, x.R), ref.Mul(w.R, w.R), nil, ro)
				e.expect("Conv", tensor.Float32, want, sumTol(1e-5, numElements(c.w[1:]), sq), func() *tensor.Tensor { return convDev(x.T, w.T, nil, c.opt) })
			}})
			for _, xl := range []layout{l, transposed, strided} {
				cs = append(cs, testCase{name: caseName("conv_grad", "float32", convName(c), "x="+xl.name+",w="+l.name), run: func(e *env) {
					checkGrad(e, gradOp{caseName("conv", convName(c)), []gradIn{in(c.x...).laid(xl), in(c.w...).laid(l)},
						func(t []*tensor.Tensor) *tensor.Tensor { return convDev(t[0], t[1], nil, c.opt) },
						func(a []*ref.Array) *ref.Array { return ref.Conv(a[0], a[1], nil, ro) }})
				}})
			}
		}
	}
	pools := []tensor.PoolOptions{
		{Kernel: []int{2}},
		{Kernel: []int{3}, Stride: []int{2}, Padding: []int{1}},
	}
	for _, p := range pools {
		for axis := 1; axis < 4; axis++ {
			l := expandedAt(axis)
			shape := []int{2, 3, 6, 8}
			cs = append(cs, testCase{name: caseName("pool", "float32", shapeName(shape)+",k="+shapeName(p.Kernel), l.name), run: func(e *env) {
				x := e.input(tensor.Float32, normal, l, shape...)
				e.expect("MaxPool2d", tensor.Float32, ref.MaxPool(x.R, refPool(p)), exact, func() *tensor.Tensor { return x.T.MaxPool2d(p) })
				e.expect("AvgPool2d", tensor.Float32, ref.AvgPool(x.R, refPool(p)), f32, func() *tensor.Tensor { return x.T.AvgPool2d(p) })
				checkGrad(e, unaryGrad("avg_pool2d", in(shape...).laid(l), func(t *tensor.Tensor) *tensor.Tensor { return t.AvgPool2d(p) },
					func(a *ref.Array) *ref.Array { return ref.AvgPool(a, refPool(p)) }))
				if axis == 1 { // repeated rows or columns would tie inside a window
					checkGrad(e, unaryGrad("max_pool2d", in(shape...).laid(l).spacedOut(), func(t *tensor.Tensor) *tensor.Tensor { return t.MaxPool2d(p) },
						func(a *ref.Array) *ref.Array { return ref.MaxPool(a, refPool(p)) }))
				}
			}})
		}
	}
	return cs
}
