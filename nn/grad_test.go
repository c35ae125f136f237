package nn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// Gradients of every layer's input and parameters against central
// differences (see gradCheck).

// layerCase is a layer, an input for it, and whether the input's gradient
// is checked too.
type layerCase struct {
	name  string
	layer func(dev *tensor.Device) nn.Module
	input func(dev *tensor.Device, r *rand.Rand) pair
	noDx  bool // the input is not differentiable (indices)
}

func TestLayerGradients(t *testing.T) {
	gen := func() nn.Option { return nn.WithGenerator(tensor.NewGenerator(5)) }
	cases := []layerCase{
		{"Linear", func(d *tensor.Device) nn.Module { return nn.NewLinear(d, 6, 4, gen()) }, shapeOf(3, 6), false},
		{"Linear batched", func(d *tensor.Device) nn.Module { return nn.NewLinear(d, 5, 3, gen()) }, shapeOf(2, 3, 5), false},
		{"Conv1d", func(d *tensor.Device) nn.Module {
			return nn.NewConv1d(d, 2, 3, 3, nn.Stride(2), nn.Padding(1), gen())
		}, shapeOf(2, 2, 7), false},
		{"Conv2d", func(d *tensor.Device) nn.Module {
			return nn.NewConv2d(d, 4, 4, 3, nn.Groups(2), nn.Padding(1), nn.Stride(2), gen())
		}, shapeOf(2, 4, 5, 6), false},
		{"Conv2d dilated", func(d *tensor.Device) nn.Module {
			return nn.NewConv2d(d, 2, 3, 2, nn.Dilation(2), nn.NoBias(), gen())
		}, shapeOf(1, 2, 6, 5), false},
		{"MaxPool2d", func(*tensor.Device) nn.Module { return nn.NewMaxPool2d(2) }, spacedOf(2, 2, 6, 5), false},
		{"MaxPool2d overlapping", func(*tensor.Device) nn.Module {
			return nn.NewMaxPool2d(3, nn.Stride(2), nn.Padding(1))
		}, spacedOf(1, 2, 7, 6), false},
		{"AvgPool2d", func(*tensor.Device) nn.Module { return nn.NewAvgPool2d(2, nn.Stride(1)) }, shapeOf(2, 2, 4, 5), false},
		{"AdaptiveAvgPool2d", func(*tensor.Device) nn.Module { return nn.NewAdaptiveAvgPool2d(3, 2) }, shapeOf(1, 2, 7, 5), false},
		{"BatchNorm1d", func(d *tensor.Device) nn.Module { return nn.NewBatchNorm1d(d, 3) }, shapeOf(6, 3), false},
		{"BatchNorm2d", func(d *tensor.Device) nn.Module { return nn.NewBatchNorm2d(d, 3) }, shapeOf(2, 3, 3, 4), false},
		{"LayerNorm", func(d *tensor.Device) nn.Module { return nn.NewLayerNorm(d, []int{5}) }, shapeOf(4, 5), false},
		{"GroupNorm", func(d *tensor.Device) nn.Module { return nn.NewGroupNorm(d, 2, 4) }, shapeOf(2, 4, 3), false},
		{"Embedding", func(d *tensor.Device) nn.Module { return nn.NewEmbedding(d, 7, 3, gen()) }, indicesOf(7, 2, 5), true},
		{"Dropout", func(*tensor.Device) nn.Module { return nn.NewDropout(0.4, gen()) }, shapeOf(5, 8), false},
		{"ReLU", func(*tensor.Device) nn.Module { return nn.NewReLU() }, awayOf(4, 6), false},
		{"GELU", func(*tensor.Device) nn.Module { return nn.NewGELU(false) }, shapeOf(4, 6), false},
		{"GELU tanh", func(*tensor.Device) nn.Module { return nn.NewGELU(true) }, shapeOf(4, 6), false},
		{"Sigmoid", func(*tensor.Device) nn.Module { return nn.NewSigmoid() }, shapeOf(4, 6), false},
		{"Tanh", func(*tensor.Device) nn.Module { return nn.NewTanh() }, shapeOf(4, 6), false},
		{"SiLU", func(*tensor.Device) nn.Module { return nn.NewSiLU() }, shapeOf(4, 6), false},
		{"Softmax", func(*tensor.Device) nn.Module { return nn.NewSoftmax(1) }, shapeOf(3, 5), false},
		{"LogSoftmax", func(*tensor.Device) nn.Module { return nn.NewLogSoftmax(-1) }, shapeOf(3, 5), false},
		{"Sequential", func(d *tensor.Device) nn.Module {
			return nn.NewSequential(nn.NewLinear(d, 4, 6, gen()), nn.NewTanh(), nn.NewLinear(d, 6, 2, gen()))
		}, shapeOf(3, 4), false},
	}
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		for _, c := range cases {
			m := c.layer(dev)
			x := c.input(dev, r)
			inputs := nn.Parameters(m)
			if !c.noDx {
				x = leaf(x)
				inputs = append([]*tensor.Tensor{x.T}, inputs...)
			}
			f := func() *tensor.Tensor { return m.Forward(x.T) }
			if _, ok := m.(*nn.Dropout); ok {
				// A fresh generator with one seed per evaluation: the same mask.
				f = func() *tensor.Tensor { return nn.NewDropout(0.4, gen()).Forward(x.T) }
			}
			gradCheck(t, r, c.name, inputs, f)
		}
	})
}

func shapeOf(shape ...int) func(*tensor.Device, *rand.Rand) pair {
	return func(d *tensor.Device, r *rand.Rand) pair { return randn(d, r, shape...) }
}

func spacedOf(shape ...int) func(*tensor.Device, *rand.Rand) pair {
	return func(d *tensor.Device, r *rand.Rand) pair { return spaced(d, r, shape...) }
}

func awayOf(shape ...int) func(*tensor.Device, *rand.Rand) pair {
	return func(d *tensor.Device, r *rand.Rand) pair { return awayFromZero(d, r, shape...) }
}

// indicesOf returns Int32 indices below n.
func indicesOf(n int, shape ...int) func(*tensor.Device, *rand.Rand) pair {
	return func(d *tensor.Device, r *rand.Rand) pair {
		idx := make([]int32, numel(shape))
		for i := range idx {
			idx[i] = int32(r.IntN(n))
		}
		return pair{T: tensor.FromInt32s(d, idx, shape...)}
	}
}

func TestLossGradients(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		logits := leaf(randn(dev, r, 5, 4))
		target := tensor.FromInt32s(dev, []int32{0, 3, 1, 1, 2})
		probs := tensor.FromFloat32s(dev, nntest.Normal(r, 20), 5, 4).Softmax(1)
		seg := leaf(randn(dev, r, 2, 3, 4))
		segTarget := tensor.FromInt32s(dev, []int32{0, 2, 1, 1, 2, 0, 0, 0}, 2, 4)
		pred, y := leaf(randn(dev, r, 3, 4)), randn(dev, r, 3, 4)
		bits := tensor.FromFloat32s(dev, []float32{0, 1, 1, 0, 0.3, 1, 0, 1, 0.5, 0, 1, 1}, 3, 4)
		for _, c := range []struct {
			name string
			x    *tensor.Tensor
			f    func() *tensor.Tensor
		}{
			{"CrossEntropy", logits.T, func() *tensor.Tensor { return nn.CrossEntropy(logits.T, target) }},
			{"CrossEntropy smoothed sum", logits.T, func() *tensor.Tensor {
				return nn.CrossEntropyLoss{LabelSmoothing: 0.2, Reduction: nn.Sum}.Loss(logits.T, target)
			}},
			{"CrossEntropy probabilities", logits.T, func() *tensor.Tensor { return nn.CrossEntropy(logits.T, probs) }},
			{"CrossEntropy [N,C,d]", seg.T, func() *tensor.Tensor { return nn.CrossEntropy(seg.T, segTarget) }},
			{"NLL per sample", logits.T, func() *tensor.Tensor {
				return nn.NLLLoss{Reduction: nn.None}.Loss(logits.T.LogSoftmax(1), target)
			}},
			{"MSE", pred.T, func() *tensor.Tensor { return nn.MSE(pred.T, y.T) }},
			{"BCEWithLogits", pred.T, func() *tensor.Tensor { return nn.BCEWithLogits(pred.T, bits) }},
		} {
			gradCheck(t, r, c.name, []*tensor.Tensor{c.x}, c.f)
		}
	})
}

func TestGradCheckCatchesWrongGradients(t *testing.T) {
	dev := nntest.CPU(t)
	r := nntest.Rand(t)
	x := leaf(randn(dev, r, 3, 4))
	// Detaching one factor hides half of the gradient of x*x from autograd.
	err := gradError(t, r, []*tensor.Tensor{x.T}, func() *tensor.Tensor { return x.T.Detach().Mul(x.T) })
	require.Error(t, err)
	require.NoError(t, gradError(t, r, []*tensor.Tensor{x.T}, func() *tensor.Tensor { return x.T.Mul(x.T) }))
}
