package nn_test

import (
	"path/filepath"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// trainStep runs one optimizer step of m on x, minimizing the mean square
// of its output, and returns the loss before the step.
func trainStep(t *testing.T, m nn.Module, opt optim.Optimizer, x *tensor.Tensor) float64 {
	t.Helper()
	var loss float64
	require.NoError(t, x.Device().ScopeErr(func() error {
		y := m.Forward(x)
		l := y.Mul(y).Mean()
		v, err := l.Item()
		if err != nil {
			return err
		}
		loss = v
		if err := l.Backward(); err != nil {
			return err
		}
		defer opt.ZeroGrad()
		return opt.Step()
	}))
	return loss
}

// A model and its optimizer moved between steps train exactly as the same
// model left where it was: parameters, buffers and momentum all move.
func TestToMovesModelAndOptimizerMidTraining(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		home := nntest.CPU(t)
		xs := nntest.Normal(nntest.Rand(t), 4*36)
		stay, moved := smallNet(home, 1), smallNet(home, 1)
		cfg := optim.SGDConfig{LR: 0.1, Momentum: 0.9}
		optStay, optMoved := optim.NewSGD(nn.Parameters(stay), cfg), optim.NewSGD(nn.Parameters(moved), cfg)
		xHome := tensor.FromFloat32s(home, xs, 4, 1, 6, 6)
		trainStep(t, stay, optStay, xHome)
		trainStep(t, moved, optMoved, xHome)

		require.NoError(t, nn.To(moved, dev))
		require.NoError(t, optMoved.MoveTo(dev))
		for _, n := range nn.StateDict(moved) {
			require.Same(t, dev, n.Tensor.Device(), n.Name)
		}
		for _, p := range nn.Parameters(moved) {
			require.True(t, p.RequiresGrad())
		}
		want := trainStep(t, stay, optStay, xHome)
		got := trainStep(t, moved, optMoved, tensor.FromFloat32s(dev, xs, 4, 1, 6, 6))
		require.InDelta(t, want, got, 1e-4*(1+want))
		sv, mv := stateValues(t, stay), stateValues(t, moved)
		for name, w := range sv {
			require.InDeltaSlice(t, w, mv[name], 1e-4, name)
		}
	})
}

// A checkpoint saved on the CPU loads into a model built on any backend.
func TestLoadOntoAnotherBackend(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		home := nntest.CPU(t)
		a := smallNet(home, 1)
		path := filepath.Join(t.TempDir(), "a.safetensors")
		require.NoError(t, nn.Save(path, a))
		b := smallNet(dev, 2)
		require.NoError(t, nn.Load(path, b))
		for _, n := range nn.StateDict(b) {
			require.Same(t, dev, n.Tensor.Device(), n.Name)
		}
		require.Equal(t, stateValues(t, a), stateValues(t, b))
	})
}
