package nn_test

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
	"github.com/stretchr/testify/require"
)

func TestLinearForward(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		l := nn.NewLinear(dev, 7, 5, nn.WithGenerator(tensor.NewGenerator(3)))
		w, b := refOf(t, l.Weight), refOf(t, l.Bias)
		for _, shape := range [][]int{{9, 7}, {2, 3, 7}, {7}} {
			x := randn(dev, r, shape...)
			want := ref.Add(ref.MatMul(x.R, w.Transpose(0, 1)), b)
			requireClose(t, "Linear", l.Forward(x.T), want, 1e-5, 1e-5)
		}
		nb := nn.NewLinear(dev, 7, 5, nn.NoBias())
		require.Nil(t, nb.Bias)
		x := randn(dev, r, 4, 7)
		requireClose(t, "Linear without bias", nb.Forward(x.T), ref.MatMul(x.R, refOf(t, nb.Weight).Transpose(0, 1)), 1e-5, 1e-5)
	})
}

func TestConvForward(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		c1 := nn.NewConv1d(dev, 3, 4, 3, nn.Stride(2), nn.Padding(1))
		x1 := randn(dev, r, 2, 3, 11)
		want1 := ref.Conv(x1.R, refOf(t, c1.Weight), refOf(t, c1.Bias), ref.ConvOptions{Stride: []int{2}, Padding: []int{1}})
		requireClose(t, "Conv1d", c1.Forward(x1.T), want1, 1e-4, 1e-5)

		c2 := nn.NewConv2d(dev, 4, 6, 0, nn.KernelSize(3, 2), nn.Groups(2), nn.Stride(2, 1), nn.Padding(1, 0), nn.Dilation(1, 2))
		require.Equal(t, []int{6, 2, 3, 2}, c2.Weight.Shape())
		x2 := randn(dev, r, 2, 4, 9, 8)
		opt := ref.ConvOptions{Stride: []int{2, 1}, Padding: []int{1, 0}, Dilation: []int{1, 2}, Groups: 2}
		want2 := ref.Conv(x2.R, refOf(t, c2.Weight), refOf(t, c2.Bias), opt)
		requireClose(t, "Conv2d", c2.Forward(x2.T), want2, 1e-4, 1e-5)
	})
}

func TestPoolingForward(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		x := randn(dev, r, 2, 3, 9, 7)
		mp := nn.NewMaxPool2d(3, nn.Stride(2), nn.Padding(1))
		requireClose(t, "MaxPool2d", mp.Forward(x.T), ref.MaxPool(x.R, ref.PoolOptions{Kernel: []int{3}, Stride: []int{2}, Padding: []int{1}}), 0, 0)
		ap := nn.NewAvgPool2d(2)
		requireClose(t, "AvgPool2d", ap.Forward(x.T), ref.AvgPool(x.R, ref.PoolOptions{Kernel: []int{2}}), 1e-6, 1e-6)
		ad := nn.NewAdaptiveAvgPool2d(4, 3)
		requireClose(t, "AdaptiveAvgPool2d", ad.Forward(x.T), ref.AdaptiveAvgPool(x.R, 4, 3), 1e-6, 1e-6)
	})
}

func TestBatchNormTrainAndEval(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		for _, tc := range []struct {
			name  string
			new   func() *nn.BatchNorm
			shape []int
		}{
			{"BatchNorm1d [N,C]", func() *nn.BatchNorm { return nn.NewBatchNorm1d(dev, 5, nn.Momentum(0.3)) }, []int{7, 5}},
			{"BatchNorm1d [N,C,L]", func() *nn.BatchNorm { return nn.NewBatchNorm1d(dev, 5) }, []int{3, 5, 4}},
			{"BatchNorm2d", func() *nn.BatchNorm { return nn.NewBatchNorm2d(dev, 3, nn.Eps(1e-3)) }, []int{2, 3, 5, 4}},
		} {
			bn := tc.new()
			// Non-trivial affine parameters.
			w, b := randn(dev, r, bn.C), randn(dev, r, bn.C)
			bn.Weight.Assign(w.T)
			bn.Bias.Assign(b.T)
			rm, rv := ref.Zeros(bn.C), ref.Full(1, bn.C)
			for step := 1; step <= 3; step++ {
				x := randn(dev, r, tc.shape...)
				y, nm, nv := ref.BatchNorm(x.R, rm, rv, w.R, b.R, true, bn.Momentum, bn.Eps)
				requireClose(t, tc.name+" training", bn.Forward(x.T), y, 1e-4, 1e-4)
				rm, rv = nm, nv
				requireClose(t, tc.name+" running mean", bn.RunningMean, rm, 1e-5, 1e-5)
				requireClose(t, tc.name+" running var", bn.RunningVar, rv, 1e-5, 1e-5)
				n, err := bn.NumBatchesTracked.Item()
				require.NoError(t, err)
				require.Equal(t, float64(step), n)
			}
			bn.Train(false)
			x := randn(dev, r, tc.shape...)
			y, _, _ := ref.BatchNorm(x.R, rm, rv, w.R, b.R, false, bn.Momentum, bn.Eps)
			requireClose(t, tc.name+" evaluation", bn.Forward(x.T), y, 1e-4, 1e-4)
			n, err := bn.NumBatchesTracked.Item()
			require.NoError(t, err)
			require.Equal(t, 3.0, n, "evaluation must not count batches")
		}
	})
}

func TestLayerAndGroupNorm(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		ln := nn.NewLayerNorm(dev, []int{4, 6})
		w, b := randn(dev, r, 4, 6), randn(dev, r, 4, 6)
		ln.Weight.Assign(w.T)
		ln.Bias.Assign(b.T)
		x := randn(dev, r, 3, 4, 6)
		requireClose(t, "LayerNorm", ln.Forward(x.T), ref.LayerNorm(x.R, 2, w.R, b.R, 1e-5), 1e-4, 1e-4)

		gn := nn.NewGroupNorm(dev, 2, 6, nn.NoAffine())
		require.Empty(t, gn.NamedParameters())
		x = randn(dev, r, 2, 6, 3, 3)
		requireClose(t, "GroupNorm", gn.Forward(x.T), ref.GroupNorm(x.R, 2, nil, nil, 1e-5), 1e-4, 1e-4)
	})
}

func TestEmbedding(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		e := nn.NewEmbedding(dev, 10, 4)
		w := refOf(t, e.Weight)
		idx := []int32{3, 0, 9, 3, 7, 1}
		it := tensor.FromInt32s(dev, idx, 2, 3)
		fi := make([]float64, len(idx))
		for i, v := range idx {
			fi[i] = float64(v)
		}
		want := ref.IndexSelect(w, 0, ref.New(fi, len(idx))).Reshape(2, 3, 4)
		requireClose(t, "Embedding", e.Forward(it), want, 0, 0)

		bad := e.Forward(tensor.FromInt32s(dev, []int32{2, 10}))
		_, err := bad.Float32s()
		require.Error(t, err, "index 10 of a table of 10 must be an error when read")
	})
}

func TestDropout(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		const n, p = 40000, 0.3
		x := tensor.Ones(dev, n)
		d := nn.NewDropout(p, nn.WithGenerator(tensor.NewGenerator(11)))
		y := nntest.Values(t, d.Forward(x))
		zeros := 0
		for _, v := range y {
			switch {
			case v == 0:
				zeros++
			case math.Abs(float64(v)-1/(1-p)) > 1e-6:
				t.Fatalf("kept value %g, want %g", v, 1/(1-p))
			}
		}
		sigma := math.Sqrt(n * p * (1 - p))
		require.InDelta(t, n*p, float64(zeros), 5*sigma, "dropped %d of %d", zeros, n)

		again := nntest.Values(t, nn.NewDropout(p, nn.WithGenerator(tensor.NewGenerator(11))).Forward(x))
		require.Equal(t, y, again, "the same generator seed gives the same mask")

		d.Train(false)
		require.Same(t, x, d.Forward(x), "evaluation is the identity")
		require.Equal(t, make([]float32, 3), nntest.Values(t, nn.NewDropout(1).Forward(tensor.Ones(dev, 3))))
	})
}

func TestActivations(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		x := randn(dev, r, 4, 9)
		gelu := func(v float64) float64 { return 0.5 * v * (1 + math.Erf(v/math.Sqrt2)) }
		geluTanh := func(v float64) float64 {
			return 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
		}
		sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
		for _, tc := range []struct {
			m    nn.Module
			want *ref.Array
		}{
			{nn.NewReLU(), ref.Map(x.R, func(v float64) float64 { return math.Max(v, 0) })},
			{nn.NewGELU(false), ref.Map(x.R, gelu)},
			{nn.NewGELU(true), ref.Map(x.R, geluTanh)},
			{nn.NewSigmoid(), ref.Map(x.R, sig)},
			{nn.NewTanh(), ref.Map(x.R, math.Tanh)},
			{nn.NewSiLU(), ref.Map(x.R, func(v float64) float64 { return v * sig(v) })},
			{nn.NewSoftmax(1), ref.Softmax(x.R, 1)},
			{nn.NewLogSoftmax(-1), ref.LogSoftmax(x.R, 1)},
		} {
			requireClose(t, tc.m.(*nn.Activation).String(), tc.m.Forward(x.T), tc.want, 1e-5, 1e-6)
		}
	})
}

func TestFlatten(t *testing.T) {
	dev := nntest.CPU(t)
	x := tensor.Zeros(dev, 2, 3, 4, 5)
	require.Equal(t, []int{2, 60}, nn.NewFlatten().Forward(x).Shape())
	require.Equal(t, []int{2, 12, 5}, (&nn.Flatten{Start: 1, End: 2}).Forward(x).Shape())
}
