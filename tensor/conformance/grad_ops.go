package conformance

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// Adapters from one- and two-input ops to gradOp's slice form.

func unaryGrad(name string, x gradIn, dev func(*tensor.Tensor) *tensor.Tensor, r func(*ref.Array) *ref.Array) gradOp {
	return gradOp{name, []gradIn{x},
		func(t []*tensor.Tensor) *tensor.Tensor { return dev(t[0]) },
		func(a []*ref.Array) *ref.Array { return r(a[0]) }}
}

func binaryGrad(name string, x, y gradIn, dev func(a, b *tensor.Tensor) *tensor.Tensor, r func(a, b *ref.Array) *ref.Array) gradOp {
	return gradOp{name, []gradIn{x, y},
		func(t []*tensor.Tensor) *tensor.Tensor { return dev(t[0], t[1]) },
		func(a []*ref.Array) *ref.Array { return r(a[0], a[1]) }}
}

// picksOne names the ops whose result is one of their inputs: their
// gradient checks draw inputs without near ties (gradIn.spacedOut).
var picksOne = map[string]bool{"maximum": true, "minimum": true, "max": true, "min": true}

// stepFunction names the piecewise-constant ops, whose gradient is zero
// wherever it exists: central differences across a jump are not, so they
// are checked at given points instead (exactGradOps).
var stepFunction = map[string]bool{"floor": true, "ceil": true, "sign": true}

func gradOps() []gradOp {
	var ops []gradOp
	kinked := map[string]bool{"abs": true, "relu": true}
	for _, u := range unaryOps() {
		if stepFunction[u.name] {
			continue
		}
		x := in(3, 4).from(u.dom)
		if kinked[u.name] {
			x = x.awayFromKinks()
		}
		ops = append(ops, unaryGrad(u.name, x, u.dev, u.ref))
	}
	for _, b := range binaryOps() {
		x, y := in(3, 1, 5).from(b.da), in(4, 1).from(b.db)
		if picksOne[b.name] {
			x, y = x.spacedOut(), y.from(onGrid)
		}
		ops = append(ops, binaryGrad(b.name+":3x1x5,4x1", x, y, b.dev, b.ref))
	}
	ops = append(ops, binaryGrad("mul:4x3,4x3:transposed,strided", in(4, 3).laid(transposed), in(4, 3).laid(strided), (*tensor.Tensor).Mul, ref.Mul))
	ops = append(ops, gradOp{"where", []gradIn{in(3, 4).boolean(), in(3, 4), in(4)},
		func(t []*tensor.Tensor) *tensor.Tensor { return tensor.Where(t[0], t[1], t[2]) },
		func(a []*ref.Array) *ref.Array { return ref.Where(a[0], a[1], a[2]) }})
	ops = append(ops, reduceGradOps()...)
	ops = append(ops, matmulGradOps()...)
	ops = append(ops, convGradOps()...)
	ops = append(ops, normGradOps()...)
	ops = append(ops, viewGradOps()...)
	return ops
}

// reductionIn is the input of reduction name's gradient check.
func reductionIn(name string, shape ...int) gradIn {
	if picksOne[name] {
		return in(shape...).spacedOut()
	}
	return in(shape...)
}

func reduceGradOps() []gradOp {
	var ops []gradOp
	for _, r := range reductions() {
		for _, axes := range [][]int{nil, {1}, {0, 2}} {
			ops = append(ops, unaryGrad(caseName(r.name, axesName(axes)), reductionIn(r.name, 2, 3, 4),
				func(t *tensor.Tensor) *tensor.Tensor { return r.dev(t, false, axes) },
				func(a *ref.Array) *ref.Array { return r.ref(a, false, axes) }))
		}
		ops = append(ops, unaryGrad(caseName(r.name+"_keepdim", "axes=1"), reductionIn(r.name, 3, 5),
			func(t *tensor.Tensor) *tensor.Tensor { return r.dev(t, true, []int{1}) },
			func(a *ref.Array) *ref.Array { return r.ref(a, true, []int{1}) }))
	}
	for _, axis := range []int{0, -1} {
		ops = append(ops,
			unaryGrad(fmt.Sprintf("softmax(%d)", axis), in(3, 5).scaledBy(2),
				func(t *tensor.Tensor) *tensor.Tensor { return t.Softmax(axis) },
				func(a *ref.Array) *ref.Array { return ref.Softmax(a, axis) }),
			unaryGrad(fmt.Sprintf("log_softmax(%d)", axis), in(3, 5).scaledBy(2),
				func(t *tensor.Tensor) *tensor.Tensor { return t.LogSoftmax(axis) },
				func(a *ref.Array) *ref.Array { return ref.LogSoftmax(a, axis) }))
	}
	return ops
}

func matmulGradOps() []gradOp {
	var ops []gradOp
	for _, s := range [][2][]int{{{3, 4}, {4, 5}}, {{4}, {4, 3}}, {{3, 4}, {4}}, {{2, 1, 3, 4}, {3, 4, 2}}, {{2, 3, 4}, {4, 5}}, {{2, 3, 4}, {1, 4, 5}}} {
		ops = append(ops, binaryGrad(caseName("matmul", shapesName(s[0], s[1])), in(s[0]...), in(s[1]...), (*tensor.Tensor).MatMul, ref.MatMul))
	}
	ops = append(ops, binaryGrad("matmul:3x4,4x5:transposed", in(3, 4).laid(transposed), in(4, 5).laid(transposed), (*tensor.Tensor).MatMul, ref.MatMul))
	ops = append(ops, binaryGrad("matmul:2x3x4,4x5:transposed", in(2, 3, 4).laid(transposed), in(4, 5).laid(transposed), (*tensor.Tensor).MatMul, ref.MatMul))
	ops = append(ops, gradOp{"matmul_add_relu", []gradIn{in(5, 4), in(4, 3), in(3)},
		func(t []*tensor.Tensor) *tensor.Tensor { return t[0].MatMul(t[1]).Add(t[2]).Relu() },
		func(a []*ref.Array) *ref.Array { return ref.Relu(ref.Add(ref.MatMul(a[0], a[1]), a[2])) }})
	return ops
}

func convGradOps() []gradOp {
	var ops []gradOp
	for _, c := range []convCase{
		{[]int{2, 3, 9}, []int{4, 3, 3}, true, tensor.ConvOptions{Stride: []int{2}, Padding: []int{1}}},
		{[]int{1, 4, 6, 5}, []int{4, 2, 3, 3}, true, tensor.ConvOptions{Padding: []int{1}, Groups: 2}},
		{[]int{1, 2, 7, 6}, []int{3, 2, 2, 2}, false, tensor.ConvOptions{Dilation: []int{2}, Stride: []int{1, 2}}},
		{[]int{1, 2, 4, 4, 3}, []int{2, 2, 2, 2, 2}, true, tensor.ConvOptions{Padding: []int{1, 0, 0}}},
	} {
		ins := []gradIn{in(c.x...), in(c.w...)}
		if c.bias {
			ins = append(ins, in(c.w[0]))
		}
		ro := ref.ConvOptions{Stride: c.opt.Stride, Padding: c.opt.Padding, Dilation: c.opt.Dilation, Groups: c.opt.Groups}
		ops = append(ops, gradOp{caseName("conv", convName(c)), ins,
			func(t []*tensor.Tensor) *tensor.Tensor {
				var b *tensor.Tensor
				if len(t) > 2 {
					b = t[2]
				}
				return convDev(t[0], t[1], b, c.opt)
			},
			func(a []*ref.Array) *ref.Array {
				var b *ref.Array
				if len(a) > 2 {
					b = a[2]
				}
				return ref.Conv(a[0], a[1], b, ro)
			}})
	}
	mp := tensor.PoolOptions{Kernel: []int{3}, Stride: []int{2}, Padding: []int{1}}
	ap := tensor.PoolOptions{Kernel: []int{3}, Stride: []int{2}, Padding: []int{1}, CountExcludePad: true}
	ops = append(ops,
		unaryGrad("max_pool2d", in(1, 2, 6, 6).spacedOut(), func(t *tensor.Tensor) *tensor.Tensor { return t.MaxPool2d(mp) },
			func(a *ref.Array) *ref.Array { return ref.MaxPool(a, refPool(mp)) }),
		// ReLU then max pool: the ReLU's gradient is masked before the
		// scatter (tensor's maskedMaxPoolGrad); windows of 2 and overlapping ones.
		unaryGrad("relu_max_pool2d(2)", in(2, 3, 6, 6).spacedOut(), func(t *tensor.Tensor) *tensor.Tensor { return t.Relu().MaxPool2d(tensor.PoolOptions{Kernel: []int{2}}) },
			func(a *ref.Array) *ref.Array {
				return ref.MaxPool(ref.Relu(a), refPool(tensor.PoolOptions{Kernel: []int{2}}))
			}),
		unaryGrad("relu_max_pool2d(3,2,1)", in(1, 2, 6, 6).spacedOut(), func(t *tensor.Tensor) *tensor.Tensor { return t.Relu().MaxPool2d(mp) },
			func(a *ref.Array) *ref.Array { return ref.MaxPool(ref.Relu(a), refPool(mp)) }),
		// A channel bias before them: its gradient sums the pooled gradient.
		binaryGrad("bias_relu_max_pool2d(3,2,1)", in(2, 3, 6, 6).spacedOut(), in(3, 1, 1).from(onGrid),
			func(x, b *tensor.Tensor) *tensor.Tensor { return x.Add(b).Relu().MaxPool2d(mp) },
			func(x, b *ref.Array) *ref.Array { return ref.MaxPool(ref.Relu(ref.Add(x, b)), refPool(mp)) }),
		binaryGrad("bias_max_pool2d(2)", in(2, 3, 6, 6).spacedOut(), in(3, 1, 1).from(onGrid),
			func(x, b *tensor.Tensor) *tensor.Tensor {
				return x.Add(b).MaxPool2d(tensor.PoolOptions{Kernel: []int{2}})
			},
			func(x, b *ref.Array) *ref.Array {
				return ref.MaxPool(ref.Add(x, b), refPool(tensor.PoolOptions{Kernel: []int{2}}))
			}),
		unaryGrad("max_pool2d(gapped)", in(2, 3, 11, 13).spacedOut(), func(t *tensor.Tensor) *tensor.Tensor { return t.MaxPool2d(gappedPool) },
			func(a *ref.Array) *ref.Array { return ref.MaxPool(a, refPool(gappedPool)) }),
		unaryGrad("avg_pool2d(gapped)", in(2, 3, 11, 13), func(t *tensor.Tensor) *tensor.Tensor { return t.AvgPool2d(gappedPool) },
			func(a *ref.Array) *ref.Array { return ref.AvgPool(a, refPool(gappedPool)) }),
		unaryGrad("avg_pool2d", in(1, 2, 6, 6), func(t *tensor.Tensor) *tensor.Tensor { return t.AvgPool2d(ap) },
			func(a *ref.Array) *ref.Array { return ref.AvgPool(a, refPool(ap)) }),
		unaryGrad("adaptive_avg_pool2d(4,3)", in(1, 2, 7, 5), func(t *tensor.Tensor) *tensor.Tensor { return t.AdaptiveAvgPool2d(4, 3) },
			func(a *ref.Array) *ref.Array { return ref.AdaptiveAvgPool(a, 4, 3) }))
	return ops
}

func normGradOps() []gradOp {
	const eps = 1e-5
	return []gradOp{
		{"layer_norm", []gradIn{in(3, 5).scaledBy(2), in(5), in(5)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].LayerNorm(1, t[1], t[2], eps) },
			func(a []*ref.Array) *ref.Array { return ref.LayerNorm(a[0], 1, a[1], a[2], eps) }},
		{"layer_norm(2)", []gradIn{in(2, 3, 4)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].LayerNorm(2, nil, nil, eps) },
			func(a []*ref.Array) *ref.Array { return ref.LayerNorm(a[0], 2, nil, nil, eps) }},
		{"batch_norm(training)", []gradIn{in(4, 3, 2).scaledBy(2), in(3), in(3), in(3).constant(), in(3).from(uniform(0.5, 2)).constant()},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].BatchNorm(t[3], t[4], t[1], t[2], true, 0.1, eps) },
			func(a []*ref.Array) *ref.Array {
				y, _, _ := ref.BatchNorm(a[0], a[3], a[4], a[1], a[2], true, 0.1, eps)
				return y
			}},
		{"batch_norm(eval)", []gradIn{in(4, 3, 2), in(3), in(3), in(3).constant(), in(3).from(uniform(0.5, 2)).constant()},
			func(t []*tensor.Tensor) *tensor.Tensor {
				return t[0].BatchNorm(t[3], t[4], t[1], t[2], false, 0.1, eps)
			},
			func(a []*ref.Array) *ref.Array {
				y, _, _ := ref.BatchNorm(a[0], a[3], a[4], a[1], a[2], false, 0.1, eps)
				return y
			}},
		{"group_norm", []gradIn{in(2, 4, 3).scaledBy(2), in(4), in(4)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].GroupNorm(2, t[1], t[2], eps) },
			func(a []*ref.Array) *ref.Array { return ref.GroupNorm(a[0], 2, a[1], a[2], eps) }},
	}
}

func viewGradOps() []gradOp {
	var ops []gradOp
	for _, v := range viewOps() {
		ops = append(ops, unaryGrad(caseName(v.name, shapeName(v.shape)), in(v.shape...), v.dev, v.ref))
	}
	ops = append(ops,
		gradOp{"cat(1)", []gradIn{in(2, 3), in(2, 1), in(2, 4).laid(transposed)},
			func(t []*tensor.Tensor) *tensor.Tensor { return tensor.Cat(1, t...) },
			func(a []*ref.Array) *ref.Array { return ref.Cat(1, a...) }},
		gradOp{"stack(-1)", []gradIn{in(2, 3), in(2, 3)},
			func(t []*tensor.Tensor) *tensor.Tensor { return tensor.Stack(-1, t...) },
			func(a []*ref.Array) *ref.Array { return ref.Stack(-1, a...) }},
		gradOp{"gather(1)", []gradIn{in(3, 5), in(3, 7).index(5)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].Gather(1, t[1]) },
			func(a []*ref.Array) *ref.Array { return ref.Gather(a[0], 1, a[1]) }},
		gradOp{"gather(1) pick", []gradIn{in(4, 5), in(4, 1).index(5)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].Gather(1, t[1]) },
			func(a []*ref.Array) *ref.Array { return ref.Gather(a[0], 1, a[1]) }},
		gradOp{"gather(1) pick 3-D", []gradIn{in(3, 4, 6).laid(transposed), in(3, 1, 6).index(4)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].Gather(1, t[1]) },
			func(a []*ref.Array) *ref.Array { return ref.Gather(a[0], 1, a[1]) }},
		gradOp{"gather(0) pick narrower", []gradIn{in(5, 4), in(1, 3).index(5)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].Gather(0, t[1]) },
			func(a []*ref.Array) *ref.Array { return ref.Gather(a[0], 0, a[1]) }},
		gradOp{"index_select(0)", []gradIn{in(4, 3), in(6).index(4)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].IndexSelect(0, t[1]) },
			func(a []*ref.Array) *ref.Array { return ref.IndexSelect(a[0], 0, a[1]) }},
	)
	return ops
}
