package nn_test

import (
	"fmt"
	"math/rand/v2"

	_ "github.com/shaderflow/shaderflow/cpu" // registers the cpu backend
	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/data"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
)

// A character-level GPT trained on a text and sampled from, as the demo's
// --train gpt does at a smaller size.
func ExampleNewGPT() {
	dev := tensor.MustOpen("cpu")
	defer dev.Close()

	text := "in the beginning was the word, and the word was with god. "
	vocab := data.NewCharVocab(text)
	ids, _ := vocab.Encode(text)

	cfg := nn.GPTConfig{Vocab: vocab.Size(), Context: 16, Layers: 2, Heads: 2, Model: 32}
	model := nn.NewGPT(dev, cfg, nn.WithGenerator(tensor.NewGenerator(1)))
	decay, plain := optim.SplitDecay(nn.Parameters(model)) // decay the 2-D weights only
	opt := optim.NewGroup(
		optim.NewAdamW(decay, optim.AdamConfig{LR: 3e-3, WeightDecay: 0.1}),
		optim.NewAdamW(plain, optim.AdamConfig{LR: 3e-3}),
	)
	const steps = 100
	sched := optim.NewWarmupCosineLR(opt, 10, steps, 3e-4)

	r := rand.New(rand.NewPCG(1, 2))
	var first, last float64
	for step := range steps {
		var xs, ys []int32 // 8 windows of 16 characters and the characters after them
		for range 8 {
			o := r.IntN(len(ids) - cfg.Context)
			xs = append(xs, ids[o:o+cfg.Context]...)
			ys = append(ys, ids[o+1:o+cfg.Context+1]...)
		}
		err := dev.ScopeErr(func() error {
			loss := model.Loss(tensor.FromInt32s(dev, xs, 8, cfg.Context), tensor.FromInt32s(dev, ys, 8, cfg.Context))
			if err := loss.Backward(); err != nil {
				return err
			}
			if _, err := optim.ClipGradNorm(nn.Parameters(model), 1); err != nil {
				return err
			}
			err := opt.Step()
			opt.ZeroGrad()
			sched.Step()
			if step == 0 {
				first, err = loss.Item()
			} else if step == steps-1 {
				last, err = loss.Item()
			}
			return err
		})
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Printf("loss fell below a third: %v\n", last < first/3)

	// Greedy generation: the most likely next character, again and again,
	// from at most the last Context characters.
	model.Train(false)
	out, _ := vocab.Encode("in the beg")
	dev.NoGrad(func() {
		for range 12 {
			ctx := out[max(0, len(out)-cfg.Context):]
			logits := model.Forward(tensor.FromInt32s(dev, ctx, 1, len(ctx)))
			next, _ := train.Sample(logits.Select(0, 0).Select(0, len(ctx)-1), train.SampleOptions{}, r)
			out = append(out, int32(next))
		}
	})
	// The text depends on the machine's rounding ("in the beginng was the"
	// on one), so only its length is printed here.
	fmt.Println(len(vocab.Decode(out)), "characters")
	// Output:
	// loss fell below a third: true
	// 22 characters
}
