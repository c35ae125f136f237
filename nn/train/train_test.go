package train_test

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/data"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// shortRun trains model on the first trainN samples of Fashion-MNIST for
// one epoch and checks that the mean loss of the last steps is below fall
// times that of the first steps and that accuracy on the first testN test
// samples exceeds minAcc.
func shortRun(t *testing.T, dev *tensor.Device, model nn.Module, opt optim.Optimizer, batch, trainN, testN int, fall, minAcc float64) {
	trainSet, testSet := nntest.FashionMNIST(t)
	ds := nntest.Subset(trainSet, trainN)
	tr := train.NewTrainer(dev, model, opt)
	loader := data.NewDataLoader(ds, data.LoaderConfig{BatchSize: batch, Shuffle: true, Seed: 7, DropLast: true})
	n := loader.NumBatches()
	window := max(n/5, 1)
	var first, last float64
	for b := range loader.Epoch(0) {
		require.NoError(t, tr.Step(b.X, b.Shape, b.Y))
		switch b.Index + 1 {
		case window:
			l, err := tr.MeanLoss()
			require.NoError(t, err)
			first = l
		case n - window:
			tr.ResetLoss()
		}
	}
	last, err := tr.MeanLoss()
	require.NoError(t, err)
	acc, testLoss, err := train.Evaluate(dev, model, nntest.Subset(testSet, testN), 250)
	require.NoError(t, err)
	t.Logf("%d steps of %d: mean loss of the first %d steps %.3f, of the last %d %.3f; test accuracy %.3f, loss %.3f (%d samples)",
		n, batch, window, first, window, last, acc, testLoss, testN)
	require.Less(t, last, first*fall, "the loss must fall")
	require.Greater(t, acc, minAcc)
}

func TestMLPLearnsFashionMNIST(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		m := train.MLP(dev, tensor.NewGenerator(1))
		opt := optim.NewSGD(nn.Parameters(m), optim.SGDConfig{LR: 0.1})
		shortRun(t, dev, m, opt, 64, 300*64, 2000, 0.8, 0.75)
	})
}

func TestCNNLearnsFashionMNIST(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		m := train.CNN(dev, tensor.NewGenerator(1))
		opt := optim.NewSGD(nn.Parameters(m), optim.SGDConfig{LR: 0.05, Momentum: 0.9})
		if dev.Info().Kind == device.KindSoftwareGPU {
			// A GPU emulated on the CPU (lavapipe) takes about a second a
			// step of 16: 30 steps, from 10% to about 62% on the cpu
			// backend (mean loss of the last 6 steps 0.54 of the first 6).
			shortRun(t, dev, m, opt, 16, 30*16, 200, 0.8, 0.5)
			return
		}
		steps := 100
		if testing.Short() {
			steps = 40
		}
		shortRun(t, dev, m, opt, 32, steps*32, 500, 0.8, 0.6)
	})
}

func TestEvaluateEmptyDataset(t *testing.T) {
	dev := nntest.CPU(t)
	_, _, err := train.Evaluate(dev, train.MLP(dev, nil), &data.Dataset{Shape: []int{1, 28, 28}, NumClasses: 10}, 10)
	require.Error(t, err)
}

// TestScheduleStepsEveryBatch checks that a Trainer's schedule sets the
// optimizer's rate after every step: a cosine over 4 steps from 0.1 reaches
// 0.05 after 2 steps and 0 after 4.
func TestScheduleStepsEveryBatch(t *testing.T) {
	dev := nntest.CPU(t)
	m := train.MLP(dev, tensor.NewGenerator(1))
	opt := optim.NewSGD(nn.Parameters(m), optim.SGDConfig{LR: 0.1})
	tr := train.NewTrainer(dev, m, opt)
	tr.Schedule = optim.NewCosineLR(opt, 4, 0)
	x := make([]float32, 2*28*28)
	y := []int32{3, 7}
	want := []float64{0.1 * (1 + math.Cos(math.Pi/4)) / 2, 0.05, 0.1 * (1 + math.Cos(3*math.Pi/4)) / 2, 0}
	for i, w := range want {
		require.NoError(t, tr.Step(x, []int{2, 1, 28, 28}, y))
		require.InDelta(t, w, opt.LR(), 1e-12, "after step %d", i+1)
	}
}
