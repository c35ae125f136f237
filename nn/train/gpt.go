package train

import (
	"fmt"
	"math/rand/v2"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/tensor"
)

// CharGPTConfig returns the sizes of the reference character-level GPT over
// vocab characters: 4 layers, d_model 128, 4 heads, context 128, no dropout
// (828 416 parameters for the King James Bible's 73 characters). cmd/demo's
// --train gpt trains it and cmd/bench times its inference.
func CharGPTConfig(vocab int) nn.GPTConfig {
	return nn.GPTConfig{Vocab: vocab, Context: 128, Layers: 4, Heads: 4, Model: 128}
}

// CharGPTSampling returns how cmd/demo draws its sample of the character
// GPT and cmd/bench its generation: temperature 0.8, top-k 20.
func CharGPTSampling() SampleOptions { return SampleOptions{Temperature: 0.8, TopK: 20} }

// Generate continues the token ids prompt (at least one) by n tokens and
// returns the n new ones. Each is drawn by Sample under o from the logits of
// the last position of a forward pass over the last Context tokens: the
// model has no cache of keys and values, so every new token runs it over the
// whole window again. It records no gradients and frees each step's
// tensors; the caller chooses the model's mode (Train(false) for
// evaluation). The error is Sample's.
func Generate(dev *tensor.Device, model *nn.GPT, prompt []int32, n int, o SampleOptions, r *rand.Rand) ([]int32, error) {
	if len(prompt) == 0 || n < 0 {
		panic(&tensor.UsageError{Op: "train.Generate", Msg: fmt.Sprintf("a prompt of %d tokens and %d new ones: the prompt must not be empty and n must be non-negative", len(prompt), n)})
	}
	ids := append(make([]int32, 0, len(prompt)+n), prompt...)
	var err error
	dev.NoGrad(func() {
		for range n {
			err = dev.ScopeErr(func() error {
				ctx := ids[max(0, len(ids)-model.Config.Context):]
				logits := model.Forward(tensor.FromInt32s(dev, ctx, 1, len(ctx)))
				next, err := Sample(logits.Select(0, 0).Select(0, len(ctx)-1), o, r)
				ids = append(ids, int32(next))
				return err
			})
			if err != nil {
				return
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return ids[len(prompt):], nil
}
