package onnx

import (
	"fmt"
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/tensor"
)

// float returns input i on the device, which must be floating-point.
func (c *call) float(i int) (*tensor.Tensor, error) {
	if !c.in[i].dt.IsFloat() {
		return nil, fmt.Errorf("input %d is %v, want a floating-point type", i, c.in[i].dt)
	}
	return c.t(i), nil
}

// twoFloats checks that the node has at least two inputs and returns the
// first two, both of a floating-point type (a product's operands).
func (c *call) twoFloats() (a, b *tensor.Tensor, err error) {
	if err := c.need(2); err != nil {
		return nil, nil, err
	}
	if a, err = c.float(0); err != nil {
		return nil, nil, err
	}
	if b, err = c.float(1); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

// setFloat outputs t in input 0's type.
func (c *call) setFloat(ts ...*tensor.Tensor) {
	dt := c.in[0].dt
	want, _ := deviceType(dt)
	for _, t := range ts {
		if t.DType() != want {
			t = t.Cast(want)
		}
		c.setDev(dt, t)
	}
}

func runMatMul(c *call) error {
	a, b, err := c.twoFloats()
	if err != nil {
		return err
	}
	c.setFloat(a.MatMul(b))
	return nil
}

func runGemm(c *call) error {
	a, b, err := c.twoFloats()
	if err != nil {
		return err
	}
	if a.Dim() != 2 || b.Dim() != 2 {
		return fmt.Errorf("operands %v and %v are not matrices", a.Shape(), b.Shape())
	}
	if c.n.attrInt("transA", 0) != 0 {
		a = a.T()
	}
	if c.n.attrInt("transB", 0) != 0 {
		b = b.T()
	}
	y := a.MatMul(b)
	if alpha := c.n.attrFloat("alpha", 1); alpha != 1 {
		y = y.MulScalar(alpha)
	}
	if c.arg(2) != nil {
		bias := c.t(2)
		if beta := c.n.attrFloat("beta", 1); beta != 1 {
			bias = bias.MulScalar(beta)
		}
		y = y.Add(bias)
	}
	c.setFloat(y)
	return nil
}

// window is the geometry of a Conv or pooling node.
type window struct {
	kernel, strides, dilations []int
	begin, end                 []int // padding
}

// windowOf reads kernel_shape, strides, dilations, pads and auto_pad for a
// window over the spatial dimensions of input shape.
func (c *call) windowOf(shape, kernel []int, ceil bool) (window, error) {
	nd := len(shape) - 2
	w := window{kernel: kernel}
	if nd < 1 || nd > 3 {
		return w, c.unsupported("%d spatial dimensions", nd)
	}
	if len(kernel) != nd {
		return w, fmt.Errorf("kernel %v for input %v", kernel, shape)
	}
	ones := func(v []int) []int {
		if v == nil {
			v = make([]int, nd)
			for i := range v {
				v[i] = 1
			}
		}
		return v
	}
	w.strides, w.dilations = ones(c.n.attrInts("strides")), ones(c.n.attrInts("dilations"))
	pads := c.n.attrInts("pads")
	if pads == nil {
		pads = make([]int, 2*nd)
	}
	if len(w.strides) != nd || len(w.dilations) != nd || len(pads) != 2*nd {
		return w, fmt.Errorf("strides %v, dilations %v, pads %v for %d dimensions", w.strides, w.dilations, pads, nd)
	}
	w.begin, w.end = pads[:nd], pads[nd:]
	switch ap := c.n.attrString("auto_pad", "NOTSET"); ap {
	case "NOTSET", "":
	case "VALID":
		w.begin, w.end = make([]int, nd), make([]int, nd)
	case "SAME_UPPER", "SAME_LOWER":
		w.begin, w.end = make([]int, nd), make([]int, nd)
		for i := range nd {
			in := shape[2+i]
			out := (in + w.strides[i] - 1) / w.strides[i]
			total := max((out-1)*w.strides[i]+(kernel[i]-1)*w.dilations[i]+1-in, 0)
			small := total / 2
			if ap == "SAME_UPPER" {
				w.begin[i], w.end[i] = small, total-small
			} else {
				w.begin[i], w.end[i] = total-small, small
			}
		}
	default:
		return w, c.unsupported("auto_pad %q", ap)
	}
	for _, v := range slices.Concat(w.strides, w.dilations) {
		if v < 1 {
			return w, fmt.Errorf("strides %v, dilations %v", w.strides, w.dilations)
		}
	}
	for _, v := range slices.Concat(w.begin, w.end) {
		if v < 0 {
			return w, fmt.Errorf("pads %v", pads)
		}
	}
	return w, nil
}

// avgPool averages x over w's windows counting padding, with w's padding
// applied symmetrically by the kernel (it must be symmetric).
func avgPool(x *tensor.Tensor, w window, ceil bool) *tensor.Tensor {
	x, pad := w.symmetric(x, 0)
	o := tensor.PoolOptions{Kernel: w.kernel, Stride: w.strides, Padding: pad, Dilation: w.dilations, CeilMode: ceil}
	switch len(w.kernel) {
	case 1:
		return x.AvgPool1d(o)
	case 2:
		return x.AvgPool2d(o)
	}
	return x.AvgPool3d(o)
}

// overHalf reports whether some padding exceeds half the dilated window,
// which the front end's pooling refuses (as PyTorch does).
func (w *window) overHalf() bool {
	for i := range w.begin {
		half := w.kernel[i] / 2
		if w.begin[i] > half || w.end[i] > half {
			return true
		}
	}
	return false
}

// symmetric returns the padding when it is the same on both sides, and
// otherwise pads x by the difference with value (so that the rest is
// symmetric).
func (w *window) symmetric(x *tensor.Tensor, value float64) (*tensor.Tensor, []int) {
	nd := len(w.begin)
	pad := make([]int, nd)
	var extra []int
	asym := w.overHalf()
	for i := nd - 1; i >= 0; i-- {
		if w.overHalf() {
			// Padding beyond half the window: all of it explicit.
			extra = append(extra, w.begin[i], w.end[i])
			continue
		}
		p := min(w.begin[i], w.end[i])
		pad[i] = p
		extra = append(extra, w.begin[i]-p, w.end[i]-p)
		asym = asym || w.begin[i] != w.end[i]
	}
	if asym {
		x = x.Pad(extra, tensor.PadConstant, value)
	}
	return x, pad
}

func runConv(c *call) error {
	x, wt, err := c.twoFloats()
	if err != nil {
		return err
	}
	kernel := c.n.attrInts("kernel_shape")
	if kernel == nil {
		kernel = wt.Shape()[2:]
	}
	w, err := c.windowOf(x.Shape(), kernel, false)
	if err != nil {
		return err
	}
	var bias *tensor.Tensor
	if c.arg(2) != nil {
		bias = c.t(2)
	}
	x, pad := w.symmetric(x, 0)
	o := tensor.ConvOptions{Stride: w.strides, Padding: pad, Dilation: w.dilations, Groups: int(c.n.attrInt("group", 1))}
	var y *tensor.Tensor
	switch len(kernel) {
	case 1:
		y = x.Conv1d(wt, bias, o)
	case 2:
		y = x.Conv2d(wt, bias, o)
	default:
		y = x.Conv3d(wt, bias, o)
	}
	c.setFloat(y)
	return nil
}

func runPool(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	isMax := c.n.OpType == "MaxPool"
	if isMax && !c.in[0].dt.IsFloat() && c.in[0].dt != Bool {
		// Integers pool through Float32, exact for every value of up to
		// 16 bits; wider ones could lose their low bits.
		dt := c.in[0].dt
		if dt == Int32 || dt == Int64 || dt == Uint32 || dt == Uint64 {
			return c.unsupported("%v inputs (pooled through FLOAT, exact only for types of up to 16 bits)", dt)
		}
		c.in[0] = devVal(Float, c.t(0).Cast(tensor.Float32))
		defer func() {
			if len(c.out) > 0 {
				c.out[0] = devVal(dt, c.out[0].t.Cast(tensor.Int32))
			}
		}()
	}
	x, err := c.float(0)
	if err != nil {
		return err
	}
	if isMax && len(c.n.Outputs) > 1 && c.n.Outputs[1] != "" {
		return c.unsupported("the Indices output")
	}
	if c.n.attrInt("storage_order", 0) != 0 {
		return c.unsupported("storage_order 1")
	}
	ceil := c.n.attrInt("ceil_mode", 0) != 0
	w, err := c.windowOf(x.Shape(), c.n.attrInts("kernel_shape"), ceil)
	if err != nil {
		return err
	}
	includePad := c.n.attrInt("count_include_pad", 0) != 0
	fill := math.Inf(-1)
	if !isMax {
		fill = 0
	}
	if !isMax && !includePad && (!slices.Equal(w.begin, w.end) || w.overHalf()) {
		// Padding the pooling kernel cannot take: pad explicitly and
		// divide the windows' sums by their counts of real elements.
		ones := tensor.OnesLike(x)
		px, _ := w.symmetric(x, 0)
		pm, _ := w.symmetric(ones, 0)
		explicit := w
		explicit.begin, explicit.end = make([]int, len(w.begin)), make([]int, len(w.end))
		sum := avgPool(px, explicit, ceil)
		cnt := avgPool(pm, explicit, ceil)
		c.setFloat(sum.Div(cnt))
		return nil
	}
	x, pad := w.symmetric(x, fill)
	o := tensor.PoolOptions{Kernel: w.kernel, Stride: w.strides, Padding: pad, Dilation: w.dilations,
		CountExcludePad: !includePad, CeilMode: ceil}
	var y *tensor.Tensor
	switch nd := len(w.kernel); {
	case isMax && nd == 1:
		y = x.MaxPool1d(o)
	case isMax && nd == 2:
		y = x.MaxPool2d(o)
	case isMax:
		y = x.MaxPool3d(o)
	case nd == 1:
		y = x.AvgPool1d(o)
	case nd == 2:
		y = x.AvgPool2d(o)
	default:
		y = x.AvgPool3d(o)
	}
	c.setFloat(y)
	return nil
}

func runGlobalPool(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	x, err := c.float(0)
	if err != nil {
		return err
	}
	var axes []int
	for i := 2; i < x.Dim(); i++ {
		axes = append(axes, i)
	}
	if c.n.OpType == "GlobalMaxPool" {
		c.setFloat(x.MaxKeepDim(axes...))
	} else {
		c.setFloat(x.MeanKeepDim(axes...))
	}
	return nil
}

// channels reshapes a per-channel vector [C] to broadcast over [N, C, ...].
func channels(v *tensor.Tensor, rank int) *tensor.Tensor {
	shape := make([]int, rank-1)
	for i := range shape {
		shape[i] = 1
	}
	shape[0] = v.Shape()[0]
	return v.Reshape(shape...)
}

func runBatchNorm(c *call) error {
	if err := c.need(5); err != nil {
		return err
	}
	x, err := c.float(0)
	if err != nil {
		return err
	}
	if x.Dim() < 2 {
		return fmt.Errorf("input %v", x.Shape())
	}
	eps := c.n.attrFloat("epsilon", 1e-5)
	scale, bias, mean, vr := c.t(1), c.t(2), c.t(3), c.t(4)
	training := c.m.opset >= 14 && c.n.attrInt("training_mode", 0) != 0
	if !training && len(c.n.Outputs) > 1 && c.m.opset < 9 {
		return c.unsupported("training outputs of opset %d", c.m.opset)
	}
	r := x.Dim()
	if !training {
		// y = x*s + (b - mean*s) with s = scale/sqrt(var+eps): two
		// operations per element, which fuse into the producer's epilogue.
		s := scale.Mul(vr.AddScalar(eps).Rsqrt())
		shift := bias.Sub(mean.Mul(s))
		c.setFloat(x.Mul(channels(s, r)).Add(channels(shift, r)))
		return nil
	}
	y := x.BatchNorm(nil, nil, scale, bias, true, 0, eps)
	c.setFloat(y)
	if len(c.n.Outputs) > 1 {
		axes := []int{0}
		for i := 2; i < r; i++ {
			axes = append(axes, i)
		}
		mom := c.n.attrFloat("momentum", 0.9)
		bm := x.Detach().Mean(axes...)
		bv := x.Detach().Var(0, axes...)
		c.setFloat(mean.Detach().MulScalar(mom).Add(bm.MulScalar(1-mom)),
			vr.Detach().MulScalar(mom).Add(bv.MulScalar(1-mom)))
	}
	return nil
}

func runLayerNorm(c *call) error {
	if err := c.need(2); err != nil {
		return err
	}
	x, err := c.float(0)
	if err != nil {
		return err
	}
	a, err := axis(int(c.n.attrInt("axis", -1)), x.Dim())
	if err != nil {
		return err
	}
	eps := c.n.attrFloat("epsilon", 1e-5)
	norm := x.Shape()[a:]
	scale := c.t(1)
	var bias *tensor.Tensor
	if c.arg(2) != nil {
		bias = c.t(2)
	}
	if slices.Equal(scale.Shape(), norm) && (bias == nil || slices.Equal(bias.Shape(), norm)) {
		c.setFloat(x.LayerNorm(x.Dim()-a, scale, bias, eps))
	} else {
		y := x.LayerNorm(x.Dim()-a, nil, nil, eps).Mul(scale)
		if bias != nil {
			y = y.Add(bias)
		}
		c.setFloat(y)
	}
	if len(c.n.Outputs) > 1 {
		// Mean and InvStdDev over the normalized axes, kept as size one.
		var axes []int
		for i := a; i < x.Dim(); i++ {
			axes = append(axes, i)
		}
		xf := x.Cast(tensor.Float32)
		mean := xf.MeanKeepDim(axes...)
		d := xf.Sub(mean)
		inv := d.Mul(d).MeanKeepDim(axes...).AddScalar(eps).Rsqrt()
		c.setDev(Float, mean, inv)
	}
	return nil
}

func runSoftmax(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	x, err := c.float(0)
	if err != nil {
		return err
	}
	log := c.n.OpType == "LogSoftmax"
	apply := func(t *tensor.Tensor, a int) *tensor.Tensor {
		if log {
			return t.LogSoftmax(a)
		}
		return t.Softmax(a)
	}
	if c.m.opset >= 13 {
		a, err := axis(int(c.n.attrInt("axis", -1)), x.Dim())
		if err != nil {
			return err
		}
		c.setFloat(apply(x, a))
		return nil
	}
	// Before opset 13 the input is flattened to 2-D at axis.
	s := x.Shape()
	a, err := axis(int(c.n.attrInt("axis", 1)), len(s))
	if err != nil {
		return err
	}
	c.setFloat(apply(x.Reshape(numel(s[:a]), numel(s[a:])), 1).Reshape(s...))
	return nil
}

// reduceFrom is the first opset whose reductions take axes as an input.
func reduceFrom(op string) int64 {
	if op == "ReduceSum" {
		return 13
	}
	return 18
}

func runReduce(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	r := c.rank(0)
	as, given := c.axesArg(reduceFrom(c.n.OpType))
	if !given || len(as) == 0 {
		if c.n.attrInt("noop_with_empty_axes", 0) != 0 {
			c.out = append(c.out, c.in[0])
			return nil
		}
		as = nil
		for i := range r {
			as = append(as, i)
		}
	}
	as, err := axesOf(as, r)
	if err != nil {
		return err
	}
	keep := c.n.attrInt("keepdims", 1) != 0
	if c.in[0].host != nil && c.in[0].host.size() <= hostLimit {
		h, err := hostReduce(c.n.OpType, c.h(0), as, keep)
		if err != nil {
			return err
		}
		c.out = append(c.out, hostVal(h))
		return nil
	}
	x := c.t(0)
	var y *tensor.Tensor
	switch c.n.OpType {
	case "ReduceSum":
		y = x.SumKeepDim(as...)
	case "ReduceMean":
		y = x.MeanKeepDim(as...)
	case "ReduceMax":
		y = x.MaxKeepDim(as...)
	case "ReduceMin":
		y = x.MinKeepDim(as...)
	case "ReduceProd":
		y = x.ProdKeepDim(as...)
	case "ReduceSumSquare":
		y = x.Mul(x).SumKeepDim(as...)
	case "ReduceL2":
		y = x.Mul(x).SumKeepDim(as...).Sqrt()
	case "ReduceL1":
		y = x.Abs().SumKeepDim(as...)
	case "ReduceLogSumExp":
		y = x.LogSumExpKeepDim(as...)
	}
	if !keep {
		y = y.Squeeze(as...)
	}
	want, err := deviceType(c.in[0].dt)
	if err != nil {
		return err
	}
	if y.DType() != want {
		y = y.Cast(want)
	}
	c.setDev(c.in[0].dt, y)
	return nil
}

// hostReduce reduces a host value over axes.
func hostReduce(op string, h *hostValue, as []int, keep bool) (*hostValue, error) {
	s := h.shape
	out := slices.Clone(s)
	for _, a := range as {
		out[a] = 1
	}
	acc := newHost(Double, out)
	cnt := 1
	for _, a := range as {
		cnt *= s[a]
	}
	init := map[string]float64{"ReduceMax": math.Inf(-1), "ReduceMin": math.Inf(1), "ReduceProd": 1}[op]
	for k := range acc.f {
		acc.f[k] = init
	}
	ost := stridesFor(out, len(s))
	eachIndex(s, [][]int{ost}, func(k int, src []int) {
		x := h.at(k)
		a := &acc.f[src[0]]
		switch op {
		case "ReduceSum", "ReduceMean":
			*a += x
		case "ReduceMax":
			*a = math.Max(*a, x)
		case "ReduceMin":
			*a = math.Min(*a, x)
		case "ReduceProd":
			*a *= x
		case "ReduceSumSquare", "ReduceL2":
			*a += x * x
		case "ReduceL1":
			*a += math.Abs(x)
		case "ReduceLogSumExp":
			*a += math.Exp(x)
		}
	})
	res := newHost(h.dt, out)
	for k, v := range acc.f {
		switch op {
		case "ReduceMean":
			v /= float64(cnt)
		case "ReduceL2":
			v = math.Sqrt(v)
		case "ReduceLogSumExp":
			v = math.Log(v)
		}
		res.set(k, v)
	}
	if !keep {
		var sq []int
		for i, d := range s {
			if !slices.Contains(as, i) {
				sq = append(sq, d)
			}
		}
		res = res.reshaped(sq)
	}
	return res, nil
}

func runArgMax(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	a, err := axis(int(c.n.attrInt("axis", 0)), c.rank(0))
	if err != nil {
		return err
	}
	keep := c.n.attrInt("keepdims", 1) != 0
	x := c.t(0)
	last := c.n.attrInt("select_last_index", 0) != 0
	if last {
		// The first extreme of the reversed axis is the last one.
		x = x.Flip(a)
	}
	var y *tensor.Tensor
	switch {
	case c.n.OpType == "ArgMax" && keep:
		y = x.ArgMaxKeepDim(a)
	case c.n.OpType == "ArgMax":
		y = x.ArgMax(a)
	case keep:
		y = x.ArgMinKeepDim(a)
	default:
		y = x.ArgMin(a)
	}
	y = y.Cast(tensor.Int32)
	if last {
		y = y.Neg().AddScalar(float64(x.Shape()[a] - 1))
	}
	c.setDev(Int64, y)
	return nil
}
