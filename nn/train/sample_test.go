package train_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

func TestSampleGreedyAndTopK(t *testing.T) {
	dev := nntest.CPU(t)
	vals := []float32{0.5, 3, -1, 2.5, 2.9, 0}
	logits := tensor.FromFloat32s(dev, vals, 6)
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		id, err := train.Sample(logits, train.SampleOptions{}, r)
		require.NoError(t, err)
		require.Equal(t, 1, id, "temperature 0 is argmax")
		id, err = train.Sample(logits, train.SampleOptions{Temperature: 100, TopK: 3}, r)
		require.NoError(t, err)
		require.Contains(t, []int{1, 4, 3}, id, "top-3 never picks outside the three largest")
	}
	id, err := train.Sample(logits, train.SampleOptions{Temperature: 1e-4}, r)
	require.NoError(t, err)
	require.Equal(t, 1, id, "a tiny temperature is argmax too")
	_, err = train.Sample(tensor.FromFloat32s(dev, []float32{0, float32(math.NaN())}, 2), train.SampleOptions{Temperature: 1}, r)
	require.ErrorContains(t, err, "NaN")
	inf := float32(math.Inf(1))
	id, err = train.Sample(tensor.FromFloat32s(dev, []float32{0, inf, 1}, 3), train.SampleOptions{Temperature: 1}, r)
	require.NoError(t, err)
	require.Equal(t, 1, id)
	require.ErrorContains(t, tensor.Catch(func() { train.Sample(tensor.Zeros(dev, 2, 3), train.SampleOptions{}, r) }), "train.Sample")
	require.ErrorContains(t, tensor.Catch(func() { train.Sample(logits, train.SampleOptions{Temperature: -1}, r) }), "train.Sample")
}

func TestSampleFollowsSoftmax(t *testing.T) {
	dev := nntest.CPU(t)
	vals := []float32{1, 0, 2, -1, 0.5}
	const temp, n = 1.5, 20000
	logits := tensor.FromFloat32s(dev, vals, 5)
	r := rand.New(rand.NewPCG(7, 11))
	counts := make([]int, len(vals))
	for range n {
		id, err := train.Sample(logits, train.SampleOptions{Temperature: temp}, r)
		require.NoError(t, err)
		counts[id]++
	}
	sum := 0.0
	p := make([]float64, len(vals))
	for i, v := range vals {
		p[i] = math.Exp(float64(v) / temp)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
		sd := math.Sqrt(p[i] * (1 - p[i]) / n)
		// Five standard deviations: a false failure has probability below 1e-6.
		require.InDelta(t, p[i], float64(counts[i])/n, 5*sd, "token %d: %d of %d draws", i, counts[i], n)
	}
}
