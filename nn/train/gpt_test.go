package train_test

import (
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

func TestCharGPTConfig(t *testing.T) {
	cfg := train.CharGPTConfig(73)
	require.Equal(t, nn.GPTConfig{Vocab: 73, Context: 128, Layers: 4, Heads: 4, Model: 128}, cfg)
	dev := nntest.CPU(t)
	require.Equal(t, 828416, nn.NumParameters(nn.NewGPT(dev, cfg)), "the size docs/gpt.md states")
}

// TestGenerateGreedyFollowsTheArgmax checks that greedy generation picks
// the argmax of a forward pass over the last Context tokens at every step,
// with a prompt longer than the context (the window slides).
func TestGenerateGreedyFollowsTheArgmax(t *testing.T) {
	dev := nntest.CPU(t)
	cfg := nn.GPTConfig{Vocab: 7, Context: 4, Layers: 1, Heads: 2, Model: 8}
	m := nn.NewGPT(dev, cfg, nn.WithGenerator(tensor.NewGenerator(3)))
	m.Train(false)
	prompt := []int32{1, 2, 3, 4, 5, 6}
	require.NoError(t, tensor.Realize(nn.Parameters(m)...))
	before := dev.PoolStats().BytesInUse
	got, err := train.Generate(dev, m, prompt, 5, train.SampleOptions{}, rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	require.Len(t, got, 5)
	require.Equal(t, before, dev.PoolStats().BytesInUse, "no tensor outlives its step")
	ids := append([]int32{}, prompt...)
	for i := range 5 {
		ctx := ids[len(ids)-cfg.Context:]
		logits := nntest.Values(t, m.Forward(tensor.FromInt32s(dev, ctx, 1, len(ctx))))
		last := logits[(len(ctx)-1)*cfg.Vocab:]
		best := 0
		for k, v := range last {
			if v > last[best] {
				best = k
			}
		}
		require.Equal(t, int32(best), got[i], "token %d", i)
		ids = append(ids, got[i])
	}
	require.Panics(t, func() { _, _ = train.Generate(dev, m, nil, 1, train.SampleOptions{}, nil) })
}
