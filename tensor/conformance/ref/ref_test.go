package ref

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The reference is checked against values worked out by hand, and against
// identities between its own operations.

func vals(a *Array) []float64 { return a.Values() }

func seq(shape ...int) *Array { return Arange(0, float64(numElements(shape)), 1).Reshape(shape...) }

func TestViews(t *testing.T) {
	a := seq(2, 3) // [[0 1 2] [3 4 5]]
	assert.Equal(t, []float64{0, 3, 1, 4, 2, 5}, vals(a.T()))
	assert.False(t, a.T().IsContiguous())
	assert.Equal(t, []float64{0, 2, 3, 5}, vals(a.Slice(1, 0, 3, 2)))
	assert.Equal(t, []float64{1, 4}, vals(a.Slice(-1, 1, 2, 5)))
	assert.Equal(t, []int{2, 0}, a.Slice(1, 3, 3, 1).Shape())
	assert.Equal(t, []float64{1, 2, 4, 5}, vals(a.Narrow(1, 1, 2)))
	assert.Equal(t, []float64{0, 1, 2, 0, 1, 2}, vals(a.Narrow(0, 0, 1).Expand(2, 3)))
	assert.Equal(t, []float64{0, 3, 1, 4, 2, 5}, vals(a.T().Reshape(-1)))
	assert.Equal(t, []int{3, 2}, a.T().Reshape(3, -1).Shape())
	assert.Equal(t, []int{2, 1, 3}, a.Unsqueeze(1).Shape())
	assert.Equal(t, []int{2, 3}, a.Unsqueeze(-1).Squeeze().Shape())
	assert.Equal(t, []int{2, 3, 1}, a.Unsqueeze(-1).Squeeze(0).Shape())
	b := seq(2, 3, 4)
	assert.Equal(t, []int{4, 2, 3}, b.Permute(2, 0, 1).Shape())
	assert.Equal(t, b.At(1, 2, 3), b.Permute(2, 0, 1).At(3, 1, 2))
	assert.Equal(t, []int{6, 4}, b.Flatten(0, 1).Shape())
	assert.Equal(t, []int{2, 12}, b.Flatten(1, -1).Shape())
	assert.Panics(t, func() { a.Expand(3, 3) })
	assert.Panics(t, func() { a.Reshape(4, -1) })
	assert.Panics(t, func() { a.Transpose(0, 2) })
}

func TestBroadcast(t *testing.T) {
	assert.Equal(t, []int{3, 4, 5}, BroadcastShapes("x", []int{3, 1, 5}, []int{4, 1}))
	assert.Equal(t, []int{2}, BroadcastShapes("x", []int{}, []int{2}))
	assert.PanicsWithValue(t, "ref.Add: shapes [[2 3] [4]] do not broadcast", func() { Add(seq(2, 3), seq(4)) })
	s := Add(seq(3, 1, 5), seq(4, 1))
	require.Equal(t, []int{3, 4, 5}, s.Shape())
	assert.Equal(t, 5.0+2+3, s.At(1, 3, 2)) // a[1,0,2]=7, b[3,0]=3
	assert.Equal(t, []float64{4, 2}, vals(Add(Scalar(1), New([]float64{3, 1}, 2))))
}

func TestElementwise(t *testing.T) {
	x := New([]float64{-2, -0.5, 0, 1.5, math.NaN()}, 5)
	assert.Equal(t, []float64{0, 0, 0, 1.5}, vals(Relu(x))[:4])
	assert.True(t, math.IsNaN(vals(Relu(x))[4]))
	assert.Equal(t, []float64{-1, -0.5, 0, 1}, vals(Clamp(x, -1, 1))[:4])
	assert.True(t, math.IsNaN(vals(Maximum(x, Scalar(0)))[4]))
	assert.True(t, math.IsNaN(vals(Minimum(Scalar(0), x))[4]))
	assert.Equal(t, []float64{0, 0, 1, 1, 0}, vals(Gt(x, Scalar(-0.5))))
	assert.Equal(t, []float64{1, 1, 1, 1, 1}, vals(Ne(x, Scalar(3))))
	assert.Equal(t, []float64{1, 0, 0, 0, 0}, vals(Where(Lt(x, Scalar(-1)), Scalar(1), Scalar(0))), "NaN < -1 is false")
	assert.InDelta(t, 0.5, Sigmoid(Scalar(0)).Item(), 0)
	assert.InDelta(t, 1.0, Sigmoid(Scalar(800)).Item(), 0)
	assert.InDelta(t, 0.8413447460685429, Gelu(Scalar(1)).Item(), 1e-15)
	assert.InDelta(t, 0.8411919906082768, GeluTanh(Scalar(1)).Item(), 1e-15)
	assert.InDelta(t, 0.7310585786300049, Silu(Scalar(1)).Item(), 1e-15)
	assert.Equal(t, []float64{-1, -1, 0, 1}, vals(Sign(x))[:4])
	assert.Equal(t, []float64{-2, -1, 0, 1}, vals(Floor(x))[:4])
	assert.Equal(t, []float64{-2, -0.0, 0, 2}, vals(Ceil(x))[:4])
	assert.Equal(t, []float64{-0.5, -2}, vals(Reciprocal(x))[:2])
	assert.Equal(t, []float64{0, 0, 0, 0, 1}, vals(IsNaN(x)))
	assert.InDelta(t, 0.8427007929497149, Erf(Scalar(1)).Item(), 1e-15)
	p, q := New([]float64{0, 0, 1, 1}, 4), New([]float64{0, 1, 0, 1}, 4)
	assert.Equal(t, []float64{0, 0, 0, 1}, vals(And(p, q)))
	assert.Equal(t, []float64{0, 1, 1, 1}, vals(Or(p, q)))
	assert.Equal(t, []float64{1, 1, 0, 0}, vals(Not(p)))
	assert.Equal(t, []float64{-2, 1, -3}, vals(FloorDiv(New([]float64{-3, 3, 5}, 3), New([]float64{2, 2, -2}, 3))))
}

func TestReductions(t *testing.T) {
	a := New([]float64{1, 2, 3, 4, 6, 5}, 2, 3)
	assert.Equal(t, []float64{5, 8, 8}, vals(Sum(a, false, 0)))
	assert.Equal(t, []float64{6, 120}, vals(Prod(a, false, 1)))
	assert.Equal(t, 1.0, Prod(Zeros(0), false).Item())
	assert.Equal(t, []int{2, 1}, Sum(a, true, -1).Shape())
	assert.Equal(t, 21.0, Sum(a, false).Item())
	assert.Equal(t, []float64{2, 5}, vals(Mean(a, false, 1)))
	assert.Equal(t, []float64{3, 6}, vals(Max(a, false, 1)))
	assert.Equal(t, []float64{1, 2, 3}, vals(Min(a, false, 0)))
	assert.Equal(t, []float64{1, 1}, vals(Var(a, 1, false, 1)))
	assert.InDelta(t, 2.0/3, Var(a, 0, false, 1).Values()[0], 1e-15)
	assert.Equal(t, []float64{2, 1}, vals(ArgMax(a, 1)))
	assert.Equal(t, []float64{0, 0, 0}, vals(ArgMin(a, 0)))
	assert.Equal(t, []float64{1}, vals(ArgMax(New([]float64{1, 5, 5}, 3).Reshape(1, 3), 1)), "first of ties")
	n := New([]float64{1, math.NaN(), 7, math.NaN()}, 4)
	assert.True(t, math.IsNaN(Max(n, false).Item()))
	assert.True(t, math.IsNaN(Sum(n, false).Item()))
	assert.Equal(t, 1.0, ArgMax(n, 0).Item(), "NaN counts as the maximum")
	assert.Equal(t, 1.0, ArgMin(n, 0).Item())
	e := Zeros(3, 0)
	assert.Equal(t, []float64{0, 0, 0}, vals(Sum(e, false, 1)))
	assert.Equal(t, 0.0, Sum(e, false).Item())
	assert.PanicsWithValue(t, "ref.Max: reduction over an empty slice of shape [3 0]", func() { Max(e, false, 1) })
	assert.Equal(t, []int{0}, Max(e, false, 0).Shape(), "no outputs, so nothing to refuse")
	b := seq(2, 3, 4)
	assert.Equal(t, vals(Sum(Sum(b, false, 2), false, 0)), vals(Sum(b, false, 0, -1)))
}

func TestSoftmax(t *testing.T) {
	a := New([]float64{0, math.Log(2), 1e4, 1e4 - 1, math.Inf(-1), 0, math.Inf(-1), math.Inf(-1)}, 4, 2)
	s := Softmax(a, 1).Values()
	assert.InDeltaSlice(t, []float64{1.0 / 3, 2.0 / 3, 1 / (1 + math.Exp(-1)), 1 / (1 + math.E), 0, 1}, s[:6], 1e-15)
	assert.True(t, math.IsNaN(s[6]) && math.IsNaN(s[7]), "an all -inf row is NaN")
	l := LogSoftmax(a, -1).Values()
	assert.InDeltaSlice(t, []float64{math.Log(1.0 / 3), math.Log(2.0 / 3)}, l[:2], 1e-15)
	assert.True(t, math.IsInf(l[4], -1))
	assert.Equal(t, 0.0, l[5])
	c := Softmax(seq(2, 3), 0).Values()
	assert.InDelta(t, 1/(1+math.Exp(3)), c[0], 1e-15)
}

func TestMatMul(t *testing.T) {
	a, b := seq(2, 3), seq(3, 2)
	assert.Equal(t, []float64{10, 13, 28, 40}, vals(MatMul(a, b)))
	assert.Equal(t, []float64{10, 13, 28, 40}, vals(MatMul(a.T().Contiguous().T(), b)))
	v := New([]float64{1, -1, 2}, 3)
	assert.Equal(t, 2.0-1+4*2, MatMul(v, New([]float64{2, 1, 4}, 3)).Item())
	assert.Equal(t, []float64{0 - 1 + 4, 3 - 4 + 10}, vals(MatMul(a, v)))
	assert.Equal(t, []float64{0 - 2 + 8, 1 - 3 + 10}, vals(MatMul(v, b)))
	batched := MatMul(seq(4, 1, 2, 3), seq(5, 3, 2))
	require.Equal(t, []int{4, 5, 2, 2}, batched.Shape())
	want := MatMul(seq(4, 1, 2, 3).Narrow(0, 3, 1).Reshape(2, 3), seq(5, 3, 2).Narrow(0, 2, 1).Reshape(3, 2))
	assert.Equal(t, vals(want), vals(batched.Narrow(0, 3, 1).Narrow(1, 2, 1)))
	assert.Panics(t, func() { MatMul(a, a) })
}

func TestConv(t *testing.T) {
	x := New([]float64{1, 2, 3, 4}, 1, 1, 4)
	w := New([]float64{1, 0, -1}, 1, 1, 3)
	assert.Equal(t, []float64{-2, -2}, vals(Conv(x, w, nil, ConvOptions{})))
	assert.Equal(t, []float64{-2, -2, -2, 3}, vals(Conv(x, w, nil, ConvOptions{Padding: []int{1}})))
	assert.Equal(t, []float64{-2 + 5, -2 + 5}, vals(Conv(x, w, Scalar(5).Reshape(1), ConvOptions{Padding: []int{1}, Stride: []int{2}})), "stride 2 keeps windows 0 and 2")
	assert.Equal(t, []float64{0 - 3, 1 - 4}, vals(Conv(New([]float64{0, 1, 2, 3, 4}, 1, 1, 5), New([]float64{1, -1}, 1, 1, 2), nil, ConvOptions{Dilation: []int{3}})))
	// Groups: two channels, each convolved with its own 1x1 kernel.
	xg := seq(1, 2, 2, 2)
	wg := New([]float64{2, -1}, 2, 1, 1, 1)
	assert.Equal(t, []float64{0, 2, 4, 6, -4, -5, -6, -7}, vals(Conv(xg, wg, nil, ConvOptions{Groups: 2})))
	// A 1x1 convolution is a matrix product over channels.
	x2, w2 := seq(2, 3, 4, 5), Sin(seq(6, 3, 1, 1))
	y := Conv(x2, w2, nil, ConvOptions{})
	viaMM := MatMul(w2.Reshape(6, 3), x2.Reshape(2, 3, 20)).Reshape(2, 6, 4, 5)
	assert.InDeltaSlice(t, vals(viaMM), vals(y), 1e-9)
	// A 3-D convolution of a 2x2x2 sum kernel over a 3x3x3 cube.
	y3 := Conv(seq(1, 1, 3, 3, 3), Full(1, 1, 1, 2, 2, 2), nil, ConvOptions{})
	assert.Equal(t, 0.0+1+3+4+9+10+12+13, y3.At(0, 0, 0, 0, 0))
	assert.Panics(t, func() { Conv(x, New([]float64{1, 2}, 1, 2, 1), nil, ConvOptions{}) })
}

// TestConvGrads checks the adjoint identities of a bilinear map:
// sum(Conv(x, w) * dy) = sum(x * dx) = sum(w * dw), on a grouped, strided,
// padded and dilated 2-D case, and a small case by hand.
func TestConvGrads(t *testing.T) {
	x, w := Sin(seq(2, 4, 7, 6)), Cos(seq(6, 2, 3, 2))
	opt := ConvOptions{Stride: []int{2, 1}, Padding: []int{1}, Dilation: []int{1, 2}, Groups: 2}
	y := Conv(x, w, nil, opt)
	dy := Sin(Add(seq(y.Shape()...), Scalar(0.5)))
	dx, dw := ConvGrads(x, w, dy, opt)
	require.Equal(t, x.Shape(), dx.Shape())
	require.Equal(t, w.Shape(), dw.Shape())
	l := Sum(Mul(y, dy), false).Item()
	assert.InDelta(t, l, Sum(Mul(x, dx), false).Item(), 1e-9)
	assert.InDelta(t, l, Sum(Mul(w, dw), false).Item(), 1e-9)
	// y = [x0 - x2, x1 - x3] for w = [1, 0, -1]: dx = [dy0, dy1, -dy0, -dy1],
	// dw[k] = dy0*x[k] + dy1*x[k+1].
	gx, gw := ConvGrads(New([]float64{1, 2, 3, 4}, 1, 1, 4), New([]float64{1, 0, -1}, 1, 1, 3), New([]float64{10, 100}, 1, 1, 2), ConvOptions{})
	assert.Equal(t, []float64{10, 100, -10, -100}, vals(gx))
	assert.Equal(t, []float64{210, 320, 430}, vals(gw))
	assert.Panics(t, func() { ConvGrads(x, w, seq(1, 1, 1, 1), opt) }, "dy of the wrong shape")
}

func TestPool(t *testing.T) {
	x := seq(1, 1, 4, 4)
	assert.Equal(t, []float64{5, 7, 13, 15}, vals(MaxPool(x, PoolOptions{Kernel: []int{2}})))
	assert.Equal(t, []float64{2.5, 4.5, 10.5, 12.5}, vals(AvgPool(x, PoolOptions{Kernel: []int{2}})))
	// Padding 1, kernel 2, stride 2: the corner window holds only x[0,0].
	p := AvgPool(x, PoolOptions{Kernel: []int{2}, Padding: []int{1}})
	assert.Equal(t, 0.0/4, p.At(0, 0, 0, 0))
	assert.Equal(t, (1.0+2)/4, p.At(0, 0, 0, 1))
	e := AvgPool(x, PoolOptions{Kernel: []int{2}, Padding: []int{1}, CountExcludePad: true})
	assert.Equal(t, (1.0+2)/2, e.At(0, 0, 0, 1))
	assert.Equal(t, 15.0, MaxPool(x, PoolOptions{Kernel: []int{2}, Padding: []int{1}}).At(0, 0, 2, 2))
	assert.Equal(t, []float64{10, 11, 14, 15}, vals(MaxPool(x, PoolOptions{Kernel: []int{2}, Stride: []int{1}, Dilation: []int{2}})))
	a := AdaptiveAvgPool(New([]float64{1, 2, 3, 4, 5}, 1, 1, 1, 5), 1, 3)
	assert.Equal(t, []float64{1.5, 3, 4.5}, vals(a)) // windows [0,2) [1,4) [3,5)
}

func TestNorm(t *testing.T) {
	x := New([]float64{1, 2, 3, 2, 2, 2}, 2, 3)
	s := math.Sqrt(1.5)
	assert.InDeltaSlice(t, []float64{-s, 0, s, 0, 0, 0}, vals(LayerNorm(x, 1, nil, nil, 1e-12)), 1e-9)
	y := LayerNorm(x, 1, New([]float64{2, 2, 2}, 3), New([]float64{1, 1, 1}, 3), 0)
	assert.InDelta(t, 1-2*s, y.Values()[0], 1e-12)
	// Batch norm over [N=2, C=3]: channel statistics are column statistics.
	rm, rv := Zeros(3), Full(1, 3)
	bn, nm, nv := BatchNorm(x, rm, rv, nil, nil, true, 0.1, 1e-12)
	assert.InDeltaSlice(t, []float64{-1, 0, 1, 1, 0, -1}, vals(bn), 1e-9)
	assert.InDeltaSlice(t, []float64{0.15, 0.2, 0.25}, vals(nm), 1e-12)
	assert.InDeltaSlice(t, []float64{0.9 + 0.05, 0.9, 0.9 + 0.05}, vals(nv), 1e-12)
	ev, _, _ := BatchNorm(x, nm, nv, nil, Full(1, 3), false, 0.1, 1e-5)
	assert.InDelta(t, (1-0.15)/math.Sqrt(0.95+1e-5)+1, ev.Values()[0], 1e-12)
	// GroupNorm with one group is LayerNorm over all but the batch dimension;
	// with one channel per group it is instance normalization.
	z := Sin(seq(2, 4, 3))
	assert.InDeltaSlice(t, vals(LayerNorm(z, 2, nil, nil, 1e-5)), vals(GroupNorm(z, 1, nil, nil, 1e-5)), 1e-12)
	assert.InDeltaSlice(t, vals(LayerNorm(z, 1, nil, nil, 1e-5)), vals(GroupNorm(z, 4, nil, nil, 1e-5)), 1e-12)
}

func TestIndexing(t *testing.T) {
	a := seq(2, 3)
	assert.Equal(t, []float64{0, 1, 2, 0, 1, 3, 4, 5, 3, 4}, vals(Cat(1, a, a.Narrow(1, 0, 2))))
	assert.Equal(t, []int{2, 2, 3}, Stack(1, a, a).Shape())
	assert.Equal(t, []float64{0, 1, 2, 0, 1, 2}, vals(Stack(1, a, a).Narrow(0, 0, 1)))
	assert.Equal(t, []float64{2, 0, 3, 3}, vals(Gather(a, 1, New([]float64{2, 0, 0, 0}, 2, 2))))
	assert.Equal(t, []float64{3, 1, 2}, vals(Gather(a, 0, New([]float64{1, 0, 0}, 1, 3))))
	assert.Equal(t, []float64{2, 0, 2, 5, 3, 5}, vals(IndexSelect(a, 1, New([]float64{2, 0, 2}, 3))))
	assert.Equal(t, []int{2, 0}, IndexSelect(a, 1, Zeros(0)).Shape())
	assert.PanicsWithValue(t, "ref.Gather: index 3 out of range [0, 3)", func() { Gather(a, 1, Full(3, 1, 1)) })
}
