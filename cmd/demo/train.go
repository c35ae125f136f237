package main

import (
	"fmt"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/data"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
)

// trainConfig is what --train, --epochs, --data and --bench ask for.
type trainConfig struct {
	model   string // "mlp", "cnn" or "gpt"
	epochs  int
	steps   int    // training steps of gpt
	dataDir string // "" searches the usual places
	bench   bool   // also run PyTorch on the same protocol and compare
	quiet   bool   // no progress bar
	// schedule is the learning-rate schedule: "constant" (the reference
	// protocol) or "cosine" (from the reference rate to 0 over the run's
	// steps, stepped every batch).
	schedule string
	seed     uint64 // seeds the initial weights and the shuffling
	// torchDevice is where --bench runs PyTorch: cpu, cuda, or auto (cuda
	// when training on an NVIDIA GPU).
	torchDevice string
}

// The reference protocol: batch 64, reshuffled every epoch with a fixed
// seed, the short last batch kept; test accuracy in batches of 1000.
const (
	batchSize = 64
	evalBatch = 1000
)

// epochResult is one epoch's figures, from either side of a benchmark.
type epochResult struct {
	Epoch    int     `json:"epoch"`
	Seconds  float64 `json:"seconds"`
	Loss     float64 `json:"loss"`
	Accuracy float64 `json:"accuracy"`
}

// isTerminal reports whether f is a character device, as a terminal is.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// defaultEpochs is the reference workload's length: 5 epochs of the MLP,
// 1 of the CNN.
func defaultEpochs(model string) int {
	if model == "cnn" {
		return 1
	}
	return 5
}

// newModel returns the reference model, initialized from seed, and its
// optimizer for name: the MLP with SGD lr 0.1, or the CNN with SGD lr 0.05
// momentum 0.9.
func newModel(dev *tensor.Device, name string, seed uint64) (nn.Module, optim.Optimizer, error) {
	gen := tensor.NewGenerator(seed)
	switch name {
	case "mlp":
		m := train.MLP(dev, gen)
		return m, optim.NewSGD(nn.Parameters(m), optim.SGDConfig{LR: 0.1}), nil
	case "cnn":
		m := train.CNN(dev, gen)
		return m, optim.NewSGD(nn.Parameters(m), optim.SGDConfig{LR: 0.05, Momentum: 0.9}), nil
	}
	return nil, nil, fmt.Errorf("--train %q: want mlp or cnn", name)
}

// runTraining trains the reference model on Fashion-MNIST, printing each
// epoch's loss, test accuracy and time, then the profiler summary and pool
// statistics; with cfg.bench it then runs PyTorch on the same protocol.
func runTraining(dev *tensor.Device, cfg trainConfig) error {
	if cfg.model == "gpt" {
		return runGPT(dev, cfg)
	}
	model, opt, err := newModel(dev, cfg.model, cfg.seed)
	if err != nil {
		return err
	}
	trainSet, testSet, err := data.LoadFashionMNIST(cfg.dataDir)
	if err != nil {
		return err
	}
	fmt.Printf("Training %s (%d parameters) on Fashion-MNIST (%d train, %d test), batch %d, %d epoch(s)\n",
		cfg.model, nn.NumParameters(model), trainSet.Len(), testSet.Len(), batchSize, cfg.epochs)
	tr := train.NewTrainer(dev, model, opt)
	loader := data.NewDataLoader(trainSet, data.LoaderConfig{BatchSize: batchSize, Shuffle: true, Seed: cfg.seed})
	switch cfg.schedule {
	case "constant":
	case "cosine":
		tr.Schedule = optim.NewCosineLR(opt, cfg.epochs*loader.NumBatches(), 0)
	default:
		return fmt.Errorf("--schedule %q: want constant or cosine", cfg.schedule)
	}
	fmt.Printf("Protocol: lr %g (%s schedule), seed %d\n", opt.LR(), cfg.schedule, cfg.seed)
	paceGC()
	dev.Profiler().SetEnabled(true)
	var results []epochResult
	for epoch := range cfg.epochs {
		r, err := trainEpoch(dev, tr, loader, epoch, cfg)
		if err != nil {
			return err
		}
		if r.Accuracy, _, err = train.Evaluate(dev, model, testSet, evalBatch); err != nil {
			return err
		}
		fmt.Printf("epoch %d/%d  loss %.4f  test accuracy %.2f%%  time %.2f s (%.0f samples/s)\n",
			epoch+1, cfg.epochs, r.Loss, 100*r.Accuracy, r.Seconds, float64(trainSet.Len())/r.Seconds)
		results = append(results, r)
	}
	fmt.Println()
	if err := writeProfile(dev); err != nil {
		return err
	}
	if cfg.bench {
		return compareWithTorch(dev, cfg, results)
	}
	return nil
}

// trainEpoch runs one timed epoch; the clock stops after the device is
// synchronized. The progress bar is drawn only on a terminal (a log gets the
// per-epoch lines alone), its rate measured over at least 100 steps.
func trainEpoch(dev *tensor.Device, tr *train.Trainer, loader *data.DataLoader, epoch int, cfg trainConfig) (epochResult, error) {
	var bar *progressbar.ProgressBar
	progress := func(i, n int) {}
	start := time.Now()
	if !cfg.quiet && isTerminal(os.Stderr) {
		bar = progressbar.NewOptions(loader.NumBatches(),
			progressbar.OptionSetDescription(fmt.Sprintf("epoch %d", epoch+1)),
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionShowCount(),
			progressbar.OptionClearOnFinish(),
		)
		progress = func(i, n int) {
			_ = bar.Add(1)
			if (i+1)%100 == 0 { // reading the loss synchronizes; not every step
				if l, err := tr.MeanLoss(); err == nil {
					rate := float64(i+1) / time.Since(start).Seconds()
					bar.Describe(fmt.Sprintf("epoch %d loss %.4f, %.0f steps/s", epoch+1, l, rate))
				}
			}
		}
	}
	loss, err := tr.Epoch(loader, epoch, progress)
	if err == nil {
		err = dev.Sync()
	}
	elapsed := time.Since(start)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return epochResult{}, err
	}
	return epochResult{Epoch: epoch, Seconds: elapsed.Seconds(), Loss: loss}, nil
}
