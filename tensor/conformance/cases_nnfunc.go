package conformance

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// The neural-network functionals: InstanceNorm, OneHot, 1-D and 3-D and
// ceil-mode pooling, transposed convolutions, interpolation.

func nnFuncCases() []testCase {
	rows := append(normFuncRows(), poolFuncRows()...)
	rows = append(rows, convTransposeRows()...)
	rows = append(rows, interpolateRows()...)
	return append(rowCases(rows), oneHotRangeCase())
}

func normFuncRows() []opRow {
	const eps = 1e-5
	within := func(n int) func([]*ref.Array, *ref.Array) tol {
		return func([]*ref.Array, *ref.Array) tol { return normTol(n) }
	}
	return []opRow{
		row("instance_norm(affine)", []gradIn{in(2, 3, 5).scaledBy(2), in(3), in(3)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].InstanceNorm(t[1], t[2], eps) },
			func(a []*ref.Array) *ref.Array { return ref.InstanceNorm(a[0], a[1], a[2], eps) }).within(within(5)).differentiable(),
		unary("instance_norm", in(2, 4, 3, 3).scaledBy(2),
			func(t *tensor.Tensor) *tensor.Tensor { return t.InstanceNorm(nil, nil, eps) },
			func(a *ref.Array) *ref.Array { return ref.InstanceNorm(a, nil, nil, eps) }).within(within(9)).differentiable(),
		row("one_hot(5)", []gradIn{in(3, 4).index(5)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].OneHot(5) },
			func(a []*ref.Array) *ref.Array { return ref.OneHot(a[0], 5) }).giving(tensor.Int32),
		row("one_hot(3)", []gradIn{in(7).index(3)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].OneHot(3) },
			func(a []*ref.Array) *ref.Array { return ref.OneHot(a[0], 3) }).giving(tensor.Int32),
	}
}

// oneHotRangeCase checks that a class outside [0, numClasses) is an error
// when read, as in PyTorch, rather than a row of zeros.
func oneHotRangeCase() testCase {
	return testCase{name: "one_hot:class_out_of_range", run: func(e *env) {
		for _, c := range []int32{5, -1} {
			x := tensor.FromInt32s(e.dev, []int32{0, c, 2})
			if _, err := x.OneHot(5).Int32s(); err == nil {
				e.errorf("OneHot(5) of class %d read without an error", c)
			}
		}
	}}
}

// poolRow is one pooling geometry for a pool function of nd dimensions.
type poolRow struct {
	name  string
	max   bool
	shape []int
	opt   tensor.PoolOptions
}

func poolFuncRows() []opRow {
	ceil := func(o tensor.PoolOptions) tensor.PoolOptions { o.CeilMode = true; return o }
	po := func(k, s, p, d []int) tensor.PoolOptions {
		return tensor.PoolOptions{Kernel: k, Stride: s, Padding: p, Dilation: d}
	}
	excl := func(o tensor.PoolOptions) tensor.PoolOptions { o.CountExcludePad = true; return o }
	one := func(v ...int) []int { return v }
	cases := []poolRow{
		{"max_pool1d", true, one(2, 3, 11), po(one(3), one(2), one(1), nil)},
		{"max_pool1d", true, one(1, 2, 12), po(one(2), nil, nil, one(3))},
		{"max_pool3d", true, one(2, 2, 5, 6, 7), po(one(2, 3, 2), one(2, 2, 3), one(1, 1, 0), nil)},
		{"avg_pool1d", false, one(2, 3, 10), po(one(4), one(3), one(2), nil)},
		{"avg_pool1d", false, one(2, 3, 10), excl(po(one(4), one(3), one(2), nil))},
		{"avg_pool3d", false, one(1, 2, 5, 6, 4), po(one(3, 2, 2), one(2, 1, 2), one(1, 0, 1), nil)},
		{"max_pool2d", true, one(2, 3, 8, 9), ceil(po(one(3), one(2), nil, nil))},
		{"max_pool1d", true, one(2, 2, 9), ceil(po(one(3), one(3), one(1), nil))},
		{"max_pool1d", true, one(2, 2, 11), ceil(po(one(3), one(3), one(1), nil))},
		{"max_pool2d", true, one(1, 2, 10, 9), ceil(po(one(2), one(3), nil, one(2)))},
		{"max_pool3d", true, one(1, 2, 5, 7, 6), ceil(po(one(2), nil, nil, nil))},
		{"avg_pool2d", false, one(2, 3, 8, 9), ceil(po(one(3), one(2), one(1), nil))},
		{"avg_pool2d", false, one(2, 3, 8, 9), excl(ceil(po(one(3), one(2), one(1), nil)))},
		{"avg_pool1d", false, one(2, 2, 9), ceil(po(one(3), one(3), one(1), nil))},
		{"avg_pool3d", false, one(1, 2, 5, 7, 6), excl(ceil(po(one(2, 3, 2), one(2), one(1, 1, 0), nil)))},
	}
	rows := make([]opRow, 0, len(cases))
	for _, c := range cases {
		x := in(c.shape...)
		if c.max {
			x = x.spacedOut()
		}
		name := fmt.Sprintf("%s(k=%v,s=%v,p=%v,d=%v,ceil=%v,exclude_pad=%v)", c.name, c.opt.Kernel, c.opt.Stride, c.opt.Padding, c.opt.Dilation, c.opt.CeilMode, c.opt.CountExcludePad)
		r := unary(name, x, func(t *tensor.Tensor) *tensor.Tensor { return poolFunc(t, c.max, c.opt) },
			func(a *ref.Array) *ref.Array { return refPoolFunc(a, c.max, c.opt) }).differentiable()
		if !c.max {
			r = r.within(func([]*ref.Array, *ref.Array) tol { return f32 })
		}
		rows = append(rows, r)
	}
	return rows
}

// poolFunc is the max or average pooling function of t's rank.
func poolFunc(t *tensor.Tensor, isMax bool, o tensor.PoolOptions) *tensor.Tensor {
	fs := map[bool][]func(*tensor.Tensor, tensor.PoolOptions) *tensor.Tensor{
		true:  {(*tensor.Tensor).MaxPool1d, (*tensor.Tensor).MaxPool2d, (*tensor.Tensor).MaxPool3d},
		false: {(*tensor.Tensor).AvgPool1d, (*tensor.Tensor).AvgPool2d, (*tensor.Tensor).AvgPool3d},
	}
	return fs[isMax][t.Dim()-3](t, o)
}

// refPoolFunc is poolFunc's reference.
func refPoolFunc(a *ref.Array, isMax bool, o tensor.PoolOptions) *ref.Array {
	ro := ref.PoolOptions{Kernel: o.Kernel, Stride: o.Stride, Padding: o.Padding, Dilation: o.Dilation, CountExcludePad: o.CountExcludePad}
	switch {
	case o.CeilMode:
		return ref.PoolCeil(a, ro, isMax)
	case isMax:
		return ref.MaxPool(a, ro)
	}
	return ref.AvgPool(a, ro)
}

// convTRow is one transposed convolution: input, weight, bias (nil for
// none) shapes and options.
type convTRow struct {
	x, w []int
	bias bool
	opt  tensor.ConvTransposeOptions
}

func convTransposeRows() []opRow {
	cases := []convTRow{
		{[]int{2, 4, 5}, []int{4, 3, 3}, true, tensor.ConvTransposeOptions{Stride: []int{2}, Padding: []int{1}, OutputPadding: []int{1}, Groups: 2}},
		{[]int{1, 3, 6}, []int{3, 2, 2}, false, tensor.ConvTransposeOptions{Dilation: []int{3}}},
		{[]int{2, 3, 4, 5}, []int{3, 2, 3, 2}, true, tensor.ConvTransposeOptions{Stride: []int{2, 1}, Padding: []int{1, 0}, OutputPadding: []int{1, 0}, Dilation: []int{1, 2}}},
		{[]int{1, 6, 3, 3}, []int{6, 1, 2, 2}, true, tensor.ConvTransposeOptions{Stride: []int{2}, Groups: 3}},
		{[]int{1, 2, 3, 2, 3}, []int{2, 2, 2, 2, 2}, true, tensor.ConvTransposeOptions{Stride: []int{2}, Padding: []int{1}, OutputPadding: []int{1}}},
	}
	rows := make([]opRow, 0, len(cases))
	for _, c := range cases {
		nd := len(c.x) - 2
		o := c.opt
		cout := c.w[1] * max(o.Groups, 1)
		ins := []gradIn{in(c.x...), in(c.w...)}
		if c.bias {
			ins = append(ins, in(cout))
		}
		refOf := func(a []*ref.Array, sq bool) *ref.Array {
			x, w := a[0], a[1]
			var b *ref.Array
			if len(a) > 2 && !sq {
				b = a[2]
			}
			if sq {
				x, w = ref.Mul(x, x), ref.Mul(w, w)
			}
			return ref.ConvTranspose(x, w, b, o.Stride, o.Padding, o.OutputPadding, o.Dilation, o.Groups)
		}
		taps := c.x[1] / max(o.Groups, 1) * numElements(c.w[2:])
		name := fmt.Sprintf("conv_transpose%dd(w=%v,s=%v,p=%v,op=%v,d=%v,g=%d,bias=%v)", nd, c.w, o.Stride, o.Padding, o.OutputPadding, o.Dilation, o.Groups, c.bias)
		rows = append(rows, row(name, ins,
			func(t []*tensor.Tensor) *tensor.Tensor {
				var b *tensor.Tensor
				if len(t) > 2 {
					b = t[2]
				}
				fs := []func(*tensor.Tensor, *tensor.Tensor, *tensor.Tensor, tensor.ConvTransposeOptions) *tensor.Tensor{
					(*tensor.Tensor).ConvTranspose1d, (*tensor.Tensor).ConvTranspose2d, (*tensor.Tensor).ConvTranspose3d,
				}
				return fs[nd-1](t[0], t[1], b, o)
			},
			func(a []*ref.Array) *ref.Array { return refOf(a, false) }).
			within(func(a []*ref.Array, _ *ref.Array) tol { return sumTol(1e-5, taps+1, refOf(a, true)) }).
			differentiable())
	}
	return rows
}

// interpRow is one Interpolate call on an input shape.
type interpRow struct {
	shape []int
	opt   tensor.InterpolateOptions
}

func interpolateRows() []opRow {
	near, lin := tensor.InterpolateNearest, tensor.InterpolateLinear
	cases := []interpRow{
		{[]int{2, 3, 4, 6}, tensor.InterpolateOptions{Size: []int{7, 5}, Mode: near}},
		{[]int{2, 3, 5}, tensor.InterpolateOptions{Scale: []float64{2}, Mode: near}},
		{[]int{1, 2, 4, 6}, tensor.InterpolateOptions{Scale: []float64{1.5, 0.5}, Mode: near}},
		{[]int{1, 2, 3, 4, 2}, tensor.InterpolateOptions{Size: []int{5, 2, 3}, Mode: near}},
		{[]int{2, 3, 4, 5}, tensor.InterpolateOptions{Size: []int{7, 9}, Mode: lin}},
		{[]int{2, 3, 4, 5}, tensor.InterpolateOptions{Size: []int{7, 9}, Mode: lin, AlignCorners: true}},
		{[]int{1, 2, 3, 4}, tensor.InterpolateOptions{Scale: []float64{2}, Mode: lin}},
		{[]int{1, 2, 7, 5}, tensor.InterpolateOptions{Size: []int{3, 2}, Mode: lin}},
		{[]int{1, 2, 7, 5}, tensor.InterpolateOptions{Size: []int{3, 1}, Mode: lin, AlignCorners: true}},
		{[]int{2, 3, 5}, tensor.InterpolateOptions{Size: []int{8}, Mode: lin, AlignCorners: true}},
		{[]int{2, 3, 5}, tensor.InterpolateOptions{Scale: []float64{1.7}, Mode: lin}},
		{[]int{1, 2, 2, 3, 4}, tensor.InterpolateOptions{Size: []int{3, 4, 5}, Mode: lin}},
	}
	rows := make([]opRow, 0, len(cases))
	for _, c := range cases {
		o := c.opt
		nd := len(c.shape) - 2
		out, scale := make([]int, nd), make([]float64, nd)
		for i, in := range c.shape[2:] {
			if o.Size != nil {
				out[i] = o.Size[i]
				scale[i] = float64(in) / float64(out[i])
			} else {
				s := o.Scale[min(i, len(o.Scale)-1)]
				out[i] = int(float64(in) * s)
				scale[i] = 1 / s
			}
		}
		name := fmt.Sprintf("interpolate(size=%v,scale=%v,linear=%v,align_corners=%v)", o.Size, o.Scale, o.Mode == lin, o.AlignCorners)
		rows = append(rows, unary(name, in(c.shape...),
			func(t *tensor.Tensor) *tensor.Tensor { return t.Interpolate(o) },
			func(a *ref.Array) *ref.Array { return ref.Interpolate(a, out, scale, o.Mode == near, o.AlignCorners) }).
			within(magnitudeTol(1e-5, func(a []*ref.Array) *ref.Array {
				return ref.Interpolate(a[0], out, scale, o.Mode == near, o.AlignCorners)
			})).differentiable())
	}
	return rows
}
