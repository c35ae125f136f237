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

// crossEntropyRef is PyTorch's cross-entropy with label smoothing eps for
// logits [N, C] and class targets, per sample.
func crossEntropyRef(logits *ref.Array, target []int32, eps float64) []float64 {
	lp := ref.LogSoftmax(logits, 1)
	c := logits.Shape()[1]
	out := make([]float64, len(target))
	for n, k := range target {
		mean := 0.0
		for j := 0; j < c; j++ {
			mean += lp.At(n, j)
		}
		out[n] = -(1-eps)*lp.At(n, int(k)) - eps*mean/float64(c)
	}
	return out
}

func TestCrossEntropyForward(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		logits := randn(dev, r, 6, 5)
		// Large logits: a naive softmax would overflow float32.
		big := fromValues(dev, []float32{1000, -1000, 0, 999, 1000, 1001}, 2, 3)
		target := []int32{4, 0, 2, 2, 1, 3}
		tt := tensor.FromInt32s(dev, target)
		for _, eps := range []float64{0, 0.1} {
			per := crossEntropyRef(logits.R, target, eps)
			requireClose(t, "CrossEntropy none", nn.CrossEntropyLoss{LabelSmoothing: eps, Reduction: nn.None}.Loss(logits.T, tt),
				ref.New(per, len(per)), 1e-5, 1e-6)
			sum := 0.0
			for _, v := range per {
				sum += v
			}
			requireClose(t, "CrossEntropy sum", nn.CrossEntropyLoss{LabelSmoothing: eps, Reduction: nn.Sum}.Loss(logits.T, tt),
				ref.Scalar(sum), 1e-5, 1e-6)
			requireClose(t, "CrossEntropy mean", nn.CrossEntropyLoss{LabelSmoothing: eps}.Loss(logits.T, tt),
				ref.Scalar(sum/float64(len(per))), 1e-5, 1e-6)
		}
		bt := []int32{1, 0}
		requireClose(t, "CrossEntropy of large logits", nn.CrossEntropyLoss{Reduction: nn.None}.Loss(big.T, tensor.FromInt32s(dev, bt)),
			ref.New(crossEntropyRef(big.R, bt, 0), 2), 1e-5, 1e-4)

		// Probability targets equal to one-hot rows give the class-index loss.
		oneHot := make([]float32, 6*5)
		for n, k := range target {
			oneHot[n*5+int(k)] = 1
		}
		per := crossEntropyRef(logits.R, target, 0)
		requireClose(t, "CrossEntropy one-hot probabilities",
			nn.CrossEntropyLoss{Reduction: nn.None}.Loss(logits.T, tensor.FromFloat32s(dev, oneHot, 6, 5)), ref.New(per, 6), 1e-5, 1e-6)

		// NLL of log-probabilities is the same loss.
		requireClose(t, "NLL", nn.NLLLoss{Reduction: nn.None}.Loss(logits.T.LogSoftmax(1), tt), ref.New(per, 6), 1e-5, 1e-6)

		_, err := nn.CrossEntropy(logits.T, tensor.FromInt32s(dev, []int32{0, 1, 2, 3, 4, 5})).Item()
		require.Error(t, err, "class 5 of 5 is out of range")
	})
}

func TestRegressionLosses(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		x, y := randn(dev, r, 4, 3), randn(dev, r, 4, 3)
		sq := ref.Map2("MSE", x.R, y.R, func(a, b float64) float64 { return (a - b) * (a - b) })
		requireClose(t, "MSE", nn.MSE(x.T, y.T), ref.Mean(sq, false), 1e-5, 1e-6)
		requireClose(t, "MSE none", nn.MSELoss{Reduction: nn.None}.Loss(x.T, y.T), sq, 1e-5, 1e-6)

		logits := fromValues(dev, []float32{-200, -3, -0.5, 0, 0.5, 3, 200, 40}, 8)
		targets := fromValues(dev, []float32{0, 1, 0.5, 1, 0, 0.2, 1, 0}, 8)
		bce := ref.Map2("BCE", logits.R, targets.R, func(x, y float64) float64 {
			// -[y log σ(x) + (1-y) log(1-σ(x))], written stably in float64.
			return math.Max(x, 0) - x*y + math.Log1p(math.Exp(-math.Abs(x)))
		})
		requireClose(t, "BCEWithLogits", nn.BCEWithLogitsLoss{Reduction: nn.None}.Loss(logits.T, targets.T), bce, 1e-5, 1e-6)
		requireClose(t, "BCEWithLogits sum", nn.BCEWithLogitsLoss{Reduction: nn.Sum}.Loss(logits.T, targets.T), ref.Sum(bce, false), 1e-5, 1e-5)
	})
}

func TestBCEWithLogitsGradientAtZero(t *testing.T) {
	dev := nntest.CPU(t)
	// At x = 0 the gradient is sigmoid(0) - y = 0.5 - y, although both
	// max(x, 0) and |x| have a kink there.
	x := tensor.Zeros(dev, 3).AddScalar(0)
	x.SetRequiresGrad(true)
	y := tensor.FromFloat32s(dev, []float32{0, 1, 0.25})
	require.NoError(t, nn.BCEWithLogitsLoss{Reduction: nn.Sum}.Loss(x, y).Backward())
	require.InDeltaSlice(t, []float32{0.5, -0.5, 0.25}, nntest.Values(t, x.Grad()), 1e-6)
}

func TestAccuracy(t *testing.T) {
	dev := nntest.CPU(t)
	logits := tensor.FromFloat32s(dev, []float32{1, 2, 0, 5, 1, 1, 0, 0, 3}, 3, 3)
	acc, err := nn.Accuracy(logits, tensor.FromInt32s(dev, []int32{1, 0, 0})).Item()
	require.NoError(t, err)
	require.InDelta(t, 2.0/3, acc, 1e-6)
}

func TestLossShapeErrorsPanic(t *testing.T) {
	dev := nntest.CPU(t)
	logits := tensor.Zeros(dev, 4, 3)
	for name, f := range map[string]func(){
		"float target of another shape": func() { nn.CrossEntropy(logits, tensor.Zeros(dev, 4, 2)) },
		"class target of another shape": func() { nn.CrossEntropy(logits, tensor.FromInt32s(dev, []int32{0, 1, 2})) },
		"1-D logits":                    func() { nn.CrossEntropy(tensor.Zeros(dev, 3), tensor.FromInt32s(dev, []int32{0})) },
		"smoothing above one": func() {
			nn.CrossEntropyLoss{LabelSmoothing: 2}.Loss(logits, tensor.FromInt32s(dev, []int32{0, 1, 2, 0}))
		},
		"BCE shapes": func() { nn.BCEWithLogits(logits, tensor.Zeros(dev, 3, 4)) },
	} {
		err := tensor.Catch(f)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "nn.", name)
	}
}
