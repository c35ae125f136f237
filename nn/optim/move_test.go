package optim_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// movable is an optimizer whose state can change devices.
type movable interface {
	optim.Optimizer
	MoveTo(*tensor.Device) error
}

// An optimizer whose parameter and state move between steps updates as one
// left in place; without moving its state, Step is a usage error.
func TestMoveToMovesOptimizerState(t *testing.T) {
	for name, mk := range map[string]func(ps []*tensor.Tensor) movable{
		"SGD":  func(ps []*tensor.Tensor) movable { return optim.NewSGD(ps, optim.SGDConfig{LR: 0.1, Momentum: 0.9}) },
		"Adam": func(ps []*tensor.Tensor) movable { return optim.NewAdam(ps, optim.AdamConfig{LR: 0.1}) },
	} {
		t.Run(name, func(t *testing.T) {
			a, b := nntest.CPU(t), nntest.CPU(t)
			stay := tensor.FromFloat32s(a, []float32{1, -2, 3}).SetRequiresGrad(true)
			moved := tensor.FromFloat32s(a, []float32{1, -2, 3}).SetRequiresGrad(true)
			optStay, optMoved := mk([]*tensor.Tensor{stay}), mk([]*tensor.Tensor{moved})
			step := func(p *tensor.Tensor, o optim.Optimizer) {
				require.NoError(t, p.Mul(p).Sum().Backward())
				require.NoError(t, o.Step())
				o.ZeroGrad()
			}
			step(stay, optStay)
			step(moved, optMoved)
			require.NoError(t, moved.MoveTo(b))
			require.NoError(t, optMoved.MoveTo(b))
			step(stay, optStay)
			step(moved, optMoved)
			require.Equal(t, nntest.Values(t, stay), nntest.Values(t, moved))

			lagging := tensor.FromFloat32s(a, []float32{1}).SetRequiresGrad(true)
			o := mk([]*tensor.Tensor{lagging})
			step(lagging, o)
			require.NoError(t, lagging.MoveTo(b))
			require.NoError(t, lagging.Sum().Backward())
			require.Error(t, tensor.Catch(func() { _ = o.Step() }), "state left on the old device")
		})
	}
}
