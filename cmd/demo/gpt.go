package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/shaderflow/shaderflow/internal/cputime"
	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/data"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
)

// The GPT protocol of --train gpt, which the PyTorch side (gptbench.py)
// repeats: the character-level GPT of train.CharGPTConfig (4 layers, d=128,
// 4 heads, context 128);
// batches of 32 windows of 129 characters at offsets drawn from the seed
// (the same offsets on both sides); AdamW (betas 0.9, 0.99) with weight
// decay 0.1 on the 2-D weights only, lr 1e-3 after a linear warm-up over
// the first tenth of the steps (at most 100), cosine to 1e-4 at the last
// step; gradients clipped to global norm 1; validation loss as the mean
// over gptEvalBatches fixed batches of the last tenth of the text.
const (
	gptBatch       = 32
	gptLR          = 1e-3
	gptMinLR       = 1e-4
	gptBeta2       = 0.99
	gptDecay       = 0.1
	gptClip        = 1.0
	gptMaxWarmup   = 100
	gptEvalBatches = 16
	gptTrainFrac   = 0.9
	gptSampleLen   = 240
	gptDefaultStep = 500
)

// gptContext is the model's context: the length of every window.
var gptContext = train.CharGPTConfig(1).Context

// gptData is the tokenized corpus and the batch offsets of a run.
type gptData struct {
	text       string
	vocab      *data.CharVocab
	train, val []int32
	trainOffs  []int32 // steps*gptBatch window starts in train
	valOffs    []int32 // gptEvalBatches*gptBatch window starts in val
	source     string  // where the text came from, for messages
}

// loadGPTData reads the corpus (a text file when path is not empty, else
// the King James Bible of Debian's bible-kjv-text), splits it and draws the
// batch offsets from seed.
func loadGPTData(path string, steps int, seed uint64) (*gptData, error) {
	d := &gptData{source: "the King James Bible (Debian's " + data.KJVPackage + ")"}
	if path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		d.text, d.source = string(raw), path
	} else {
		text, err := data.LoadKJV()
		if err != nil {
			return nil, err
		}
		d.text = text
	}
	d.vocab = data.NewCharVocab(d.text)
	ids, err := d.vocab.Encode(d.text)
	if err != nil {
		return nil, err
	}
	d.train, d.val = data.SplitTokens(ids, gptTrainFrac)
	if len(d.val) <= gptContext+1 {
		return nil, fmt.Errorf("--train gpt: %s has %d characters; the validation tenth must exceed %d", d.source, len(ids), gptContext+1)
	}
	d.trainOffs = drawOffsets(rand.New(rand.NewPCG(seed, 1)), steps*gptBatch, len(d.train)-gptContext)
	d.valOffs = drawOffsets(rand.New(rand.NewPCG(seed, 2)), gptEvalBatches*gptBatch, len(d.val)-gptContext)
	return d, nil
}

// drawOffsets returns n window starts in [0, limit).
func drawOffsets(r *rand.Rand, n, limit int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(r.IntN(limit))
	}
	return out
}

// gptBatchAt returns the inputs and targets of the windows at offs of
// tokens: [len(offs), gptContext] each, the targets one character later.
func gptBatchAt(dev *tensor.Device, tokens []int32, offs []int32) (x, y *tensor.Tensor) {
	xs := make([]int32, 0, len(offs)*gptContext)
	ys := make([]int32, 0, len(offs)*gptContext)
	for _, o32 := range offs {
		o := int(o32)
		xs = append(xs, tokens[o:o+gptContext]...)
		ys = append(ys, tokens[o+1:o+gptContext+1]...)
	}
	return tensor.FromInt32s(dev, xs, len(offs), gptContext), tensor.FromInt32s(dev, ys, len(offs), gptContext)
}

// gptResult is what one side of --train gpt measured.
type gptResult struct {
	TokensPerS float64 `json:"tokens_per_s"` // training steps after the first
	// CPUSeconds is the process's CPU time over the same steps (all its
	// threads; 0 where the platform does not say): on a shared machine
	// tokens per CPU-second is steadier than tokens per second.
	CPUSeconds float64 `json:"cpu_seconds"`
	TrainLoss  float64 `json:"train_loss"` // mean over the last tenth of the steps
	ValLoss    float64 `json:"val_loss"`
	Seconds    float64 `json:"seconds"` // the timed steps
}

// newGPTOptimizer returns the protocol's AdamW parameter groups over m and
// its schedule over steps.
func newGPTOptimizer(m nn.Module, steps int) (optim.Optimizer, optim.Scheduler) {
	decay, noDecay := optim.SplitDecay(nn.Parameters(m))
	cfg := optim.AdamConfig{LR: gptLR, Beta1: 0.9, Beta2: gptBeta2}
	plain := optim.NewAdamW(noDecay, cfg)
	cfg.WeightDecay = gptDecay
	opt := optim.NewGroup(optim.NewAdamW(decay, cfg), plain)
	warmup := min(gptMaxWarmup, max(1, steps/10))
	return opt, optim.NewWarmupCosineLR(opt, warmup, steps, gptMinLR)
}

// runGPT trains the character GPT for cfg.steps steps, printing the
// training loss and speed as it goes, then the validation loss, a sample
// and the profile; with cfg.bench it then runs gptbench.py on the same
// data and offsets and compares.
func runGPT(dev *tensor.Device, cfg trainConfig) error {
	d, err := loadGPTData(cfg.dataDir, cfg.steps, cfg.seed)
	if err != nil {
		return err
	}
	gcfg := train.CharGPTConfig(d.vocab.Size())
	model := nn.NewGPT(dev, gcfg, nn.WithGenerator(tensor.NewGenerator(cfg.seed)))
	opt, sched := newGPTOptimizer(model, cfg.steps)
	fmt.Printf("Training a character GPT (%d layers, d=%d, %d heads, context %d, %d parameters) on %s:\n",
		gcfg.Layers, gcfg.Model, gcfg.Heads, gcfg.Context, nn.NumParameters(model), d.source)
	fmt.Printf("%d characters, vocabulary %d, %d for training, %d for validation; %d steps of %dx%d tokens, seed %d\n",
		len(d.train)+len(d.val), d.vocab.Size(), len(d.train), len(d.val), cfg.steps, gptBatch, gptContext, cfg.seed)
	paceGC()
	ours, err := trainGPT(dev, model, opt, sched, d, cfg.steps)
	if err != nil {
		return err
	}
	fmt.Printf("validation loss %.4f  (train %.4f over the last steps), %.0f tokens/s\n\n", ours.ValLoss, ours.TrainLoss, ours.TokensPerS)
	sample, err := generate(dev, model, d.vocab, "\n", gptSampleLen, cfg.seed)
	if err != nil {
		return err
	}
	fmt.Printf("Sample (temperature 0.8, top-k 20):\n%s\n\n", sample)
	if err := writeProfile(dev); err != nil {
		return err
	}
	if cfg.bench {
		return compareGPTWithTorch(dev, cfg, d, ours)
	}
	return nil
}

// trainGPT runs the protocol's steps, then the validation loss; the clock
// runs over the steps after the first (which builds the kernels) and stops
// after a device synchronization.
func trainGPT(dev *tensor.Device, model *nn.GPT, opt optim.Optimizer, sched optim.Scheduler, d *gptData, steps int) (gptResult, error) {
	params := nn.Parameters(model)
	lastSum := tensor.Zeros(dev) // the training losses of the last tenth of the steps
	defer lastSum.Release()
	lastFrom := steps - max(1, steps/10)
	logEvery := max(1, steps/10)
	var start time.Time
	var cpuStart time.Duration
	model.Train(true)
	for step := range steps {
		if step == 1 {
			if err := dev.Sync(); err != nil {
				return gptResult{}, err
			}
			start = time.Now()
			cpuStart, _ = cputime.Process()
		}
		var lossVal float64
		err := dev.ScopeErr(func() error {
			x, y := gptBatchAt(dev, d.train, d.trainOffs[step*gptBatch:(step+1)*gptBatch])
			loss := model.Loss(x, y)
			if step >= lastFrom {
				lastSum.Assign(lastSum.Add(loss.Detach()))
			}
			if err := loss.Backward(); err != nil {
				return err
			}
			if _, err := optim.ClipGradNorm(params, gptClip); err != nil {
				return err
			}
			err := opt.Step()
			opt.ZeroGrad()
			sched.Step()
			if err == nil && ((step+1)%logEvery == 0 || step == 0) {
				lossVal, err = loss.Item()
			}
			return err
		})
		if err != nil {
			return gptResult{}, fmt.Errorf("step %d: %w", step+1, err)
		}
		if (step+1)%logEvery == 0 || step == 0 {
			rate := ""
			if step > 0 {
				rate = fmt.Sprintf(", %.0f tokens/s", float64(step*gptBatch*gptContext)/time.Since(start).Seconds())
			}
			fmt.Printf("step %4d/%d  loss %.4f  lr %.2e%s\n", step+1, steps, lossVal, opt.LR(), rate)
		}
	}
	if err := dev.Sync(); err != nil {
		return gptResult{}, err
	}
	r := gptResult{}
	if steps > 1 {
		r.Seconds = time.Since(start).Seconds()
		r.TokensPerS = float64((steps-1)*gptBatch*gptContext) / r.Seconds
		if cpu, ok := cputime.Process(); ok {
			r.CPUSeconds = (cpu - cpuStart).Seconds()
		}
	}
	sum, err := lastSum.Item()
	if err != nil {
		return r, err
	}
	r.TrainLoss = sum / float64(steps-lastFrom)
	r.ValLoss, err = validationLoss(dev, model, d)
	return r, err
}

// validationLoss is the mean loss over the validation batches of d.valOffs,
// in evaluation mode without gradients.
func validationLoss(dev *tensor.Device, model *nn.GPT, d *gptData) (float64, error) {
	model.Train(false)
	defer model.Train(true)
	total, n := 0.0, len(d.valOffs)/gptBatch
	var err error
	dev.NoGrad(func() {
		for b := range n {
			err = dev.ScopeErr(func() error {
				x, y := gptBatchAt(dev, d.val, d.valOffs[b*gptBatch:(b+1)*gptBatch])
				l, err := model.Loss(x, y).Item()
				total += l
				return err
			})
			if err != nil {
				return
			}
		}
	})
	return total / float64(n), err
}

// generate continues prompt by n characters, each drawn by train.Generate
// under train.CharGPTSampling (temperature 0.8, top-k 20) in evaluation
// mode.
func generate(dev *tensor.Device, model *nn.GPT, vocab *data.CharVocab, prompt string, n int, seed uint64) (string, error) {
	ids, err := vocab.Encode(prompt)
	if err != nil {
		return "", err
	}
	model.Train(false)
	defer model.Train(true)
	out, err := train.Generate(dev, model, ids, n, train.CharGPTSampling(), rand.New(rand.NewPCG(seed, 3)))
	if err != nil {
		return "", err
	}
	return prompt + vocab.Decode(out), nil
}
