package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// TestGPTProtocolRuns trains the demo's GPT for two steps on a small text
// on the CPU, then samples from it: the --train gpt path end to end,
// without the King James Bible.
func TestGPTProtocolRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "corpus.txt")
	text := strings.Repeat("In the beginning was the word, and the word was with God.\n", 40)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	d, err := loadGPTData(path, 2, 1)
	require.NoError(t, err)
	require.Equal(t, 19, d.vocab.Size(), "distinct characters")
	require.Len(t, d.trainOffs, 2*gptBatch)
	require.Len(t, d.valOffs, gptEvalBatches*gptBatch)
	for _, o := range d.valOffs {
		require.Less(t, int(o)+gptContext, len(d.val))
	}

	d.valOffs = d.valOffs[:gptBatch] // one validation batch is enough here

	dev, err := tensor.Open("cpu")
	require.NoError(t, err)
	defer dev.Close()
	cfg := train.CharGPTConfig(d.vocab.Size())
	m := nn.NewGPT(dev, cfg, nn.WithGenerator(tensor.NewGenerator(1)))
	opt, sched := newGPTOptimizer(m, 2)
	r, err := trainGPT(dev, m, opt, sched, d, 2)
	require.NoError(t, err)
	uniform := math.Log(float64(d.vocab.Size()))
	require.Less(t, r.ValLoss, uniform+0.1)
	require.Greater(t, r.ValLoss, 0.5)
	require.Less(t, r.TrainLoss, uniform+0.1)
	require.Greater(t, r.TokensPerS, 0.0)

	s, err := generate(dev, m, d.vocab, "In", 5, 1)
	require.NoError(t, err)
	require.Len(t, []rune(s), 7)
	_, err = d.vocab.Encode(s)
	require.NoError(t, err, "samples only the vocabulary's characters")
}

func TestGPTDataRefusesShortText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "short.txt")
	require.NoError(t, os.WriteFile(path, []byte("too short"), 0o600))
	_, err := loadGPTData(path, 2, 1)
	require.ErrorContains(t, err, "validation tenth")
}
