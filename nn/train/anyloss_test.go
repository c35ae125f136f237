package train_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// meanLossOver runs steps of tr on (x, y) and returns the mean loss of the
// last ten.
func meanLossOver(t *testing.T, tr *train.Trainer, x, y *tensor.Tensor, steps int) float64 {
	t.Helper()
	for i := range steps {
		if i == steps-10 {
			tr.ResetLoss()
		}
		require.NoError(t, tr.StepTensors(x, y))
	}
	l, err := tr.MeanLoss()
	require.NoError(t, err)
	return l
}

func TestTrainerRegressionWithMSE(t *testing.T) {
	dev := nntest.CPU(t)
	gen := tensor.NewGenerator(3)
	x := gen.Randn(dev, 64, 4)
	w := tensor.FromFloat32s(dev, []float32{1, -2, 0.5, 3}, 4, 1)
	y := x.MatMul(w).AddScalar(0.25) // Float32 targets of shape [64, 1]
	model := nn.NewLinear(dev, 4, 1, nn.WithGenerator(gen))
	tr := train.NewTrainer(dev, model, optim.NewSGD(nn.Parameters(model), optim.SGDConfig{LR: 0.1}))
	tr.Loss = nn.MSE
	first := meanLossOver(t, tr, x, y, 10)
	last := meanLossOver(t, tr, x, y, 100)
	require.Less(t, last, first/100, "the regression fits")
	require.Less(t, last, 1e-3)
	_, err := x.Float32s()
	require.NoError(t, err, "the batch outlives the step's scope")
}

func TestTrainerMultiLabelWithBCE(t *testing.T) {
	dev := nntest.CPU(t)
	gen := tensor.NewGenerator(4)
	x := gen.Randn(dev, 64, 3)
	// Three independent labels per sample: the sign of each feature.
	y := x.Gt(tensor.Zeros(dev)).Cast(tensor.Float32)
	model := nn.NewLinear(dev, 3, 3, nn.WithGenerator(gen))
	tr := train.NewTrainer(dev, model, optim.NewAdam(nn.Parameters(model), optim.AdamConfig{LR: 0.1}))
	tr.Loss = nn.BCEWithLogits
	first := meanLossOver(t, tr, x, y, 10)
	last := meanLossOver(t, tr, x, y, 100)
	require.Less(t, last, first/2)
}

func TestTrainerLossMustBeOneElement(t *testing.T) {
	dev := nntest.CPU(t)
	model := nn.NewLinear(dev, 2, 2)
	tr := train.NewTrainer(dev, model, optim.NewSGD(nn.Parameters(model), optim.SGDConfig{LR: 0.1}))
	tr.Loss = func(out, target *tensor.Tensor) *tensor.Tensor { return out.Sub(target) }
	x := tensor.Ones(dev, 3, 2)
	err := tensor.Catch(func() { _ = tr.StepTensors(x, x) })
	require.ErrorContains(t, err, "train.Trainer: Loss returned a tensor of shape [3 2]")
}
