//go:build cgo && linux

package fakeconf_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/cuda"
	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/tensor"
)

// trainLosses trains a small MLP (Linear 20→16, ReLU, Linear 16→4, SGD)
// for steps steps of batch 8 on the same seeded data on a fresh CUDA device
// of the double, with graphs on or off, and returns each step's loss and
// the device's graph counters.
func trainLosses(t *testing.T, graphs bool, steps int) ([]float64, cuda.GraphStats) {
	d, err := tensor.Open("cuda")
	require.NoError(t, err)
	defer d.Close()
	cd, ok := d.Raw().(*cuda.Device)
	require.True(t, ok)
	require.NoError(t, cd.SetGraphs(graphs))
	g := nn.WithGenerator(tensor.NewGenerator(7))
	model := nn.NewSequential(nn.NewLinear(d, 20, 16, g), nn.NewReLU(), nn.NewLinear(d, 16, 4, g))
	opt := optim.NewSGD(nn.Parameters(model), optim.SGDConfig{LR: 0.1, Momentum: 0.9})
	rng := rand.New(rand.NewPCG(3, 4))
	var losses []float64
	for range steps {
		xs := make([]float32, 8*20)
		for i := range xs {
			xs[i] = float32(rng.NormFloat64())
		}
		ys := make([]int32, 8)
		for i := range ys {
			ys[i] = int32(rng.IntN(4))
		}
		require.NoError(t, d.ScopeErr(func() error {
			loss := nn.CrossEntropy(model.Forward(tensor.FromFloat32s(d, xs, 8, 20)), tensor.FromInt32s(d, ys, 8))
			v, err := loss.Item()
			if err != nil {
				return err
			}
			losses = append(losses, v)
			if err := loss.Backward(); err != nil {
				return err
			}
			defer opt.ZeroGrad()
			return opt.Step()
		}))
	}
	require.NoError(t, d.Sync())
	return losses, cd.GraphStats()
}

// TestTrainingStepGraphs trains the same model on the same data through
// the tensor front end with CUDA graphs off and on: the losses are
// bit-identical (the same kernels run in the same order, replayed from
// graphs after the first steps), and the graphs run was mostly replays.
func TestTrainingStepGraphs(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	const steps = 6
	plain, off := trainLosses(t, false, steps)
	assert.Zero(t, off.Segments, "graphs off: nothing queued")
	replayed, on := trainLosses(t, true, steps)
	assert.Equal(t, plain, replayed)
	assert.Nil(t, on.Off)
	assert.Positive(t, on.Built)
	assert.GreaterOrEqual(t, on.Replays, on.Built*(steps-3), "%+v", on)
	assert.Less(t, plain[steps-1], plain[0], "the model trains: %v", plain)
}
