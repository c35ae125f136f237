package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/data"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
	_ "github.com/shaderflow/shaderflow/tensor/backends"
)

func main() {
	backend := flag.String("backend", "auto", "device to train on: auto, cpu, vulkan, webgpu, vulkan:1, ...")
	epochs := flag.Int("epochs", 1, "epochs to train")
	steps := flag.Int("steps", 0, "batches per epoch (0: the whole training set)")
	evalN := flag.Int("eval", 0, "test samples to evaluate on (0: all)")
	dataDir := flag.String("data", "", "Fashion-MNIST directory (default $SHADERFLOW_DATA, then /usr/share/datasets/fashion-mnist)")
	name := flag.String("model", "mlp", "model to train: mlp, or cnn (much slower per epoch; --steps and --eval shorten a run)")
	ckpt := flag.String("checkpoint", "", "checkpoint file written after every epoch (default MODEL.safetensors)")
	resume := flag.Bool("resume", false, "load --checkpoint before training")
	flag.Parse()
	newModel, ok := models[*name]
	if !ok {
		fmt.Fprintf(os.Stderr, "fashion: --model %q: want mlp or cnn\n", *name)
		os.Exit(2)
	}
	if *ckpt == "" {
		*ckpt = *name + ".safetensors"
	}
	if err := run(newModel, *backend, *dataDir, *ckpt, *epochs, *steps, *evalN, *resume); err != nil {
		fmt.Fprintln(os.Stderr, "fashion:", err)
		if errors.Is(err, data.ErrDatasetNotFound) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// models are the reference models by --model name.
var models = map[string]func(*tensor.Device, *tensor.Generator) nn.Module{
	"mlp": func(d *tensor.Device, g *tensor.Generator) nn.Module { return train.MLP(d, g) },
	"cnn": func(d *tensor.Device, g *tensor.Generator) nn.Module { return train.CNN(d, g) },
}

func run(newModel func(*tensor.Device, *tensor.Generator) nn.Module, backend, dataDir, ckpt string, epochs, steps, evalN int, resume bool) error {
	trainSet, testSet, err := data.LoadFashionMNIST(dataDir)
	if err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(10) // the dataset lives on the heap: see README, "Training speed on the CPU"
	}
	dev, err := tensor.Open(backend)
	if err != nil {
		return err
	}
	defer dev.Close()
	fmt.Printf("device %s (%s)\n", dev.Name(), dev.Why())

	model := newModel(dev, tensor.NewGenerator(1))
	if resume {
		if err := nn.Load(ckpt, model); err != nil {
			return err
		}
		fmt.Println("resumed from", ckpt)
	}
	opt := optim.NewSGD(nn.Parameters(model), optim.SGDConfig{LR: 0.05, Momentum: 0.9})
	tr := train.NewTrainer(dev, model, opt)
	loader := data.NewDataLoader(trainSet, data.LoaderConfig{BatchSize: 64, Shuffle: true, Seed: 1, DropLast: true})
	if evalN > 0 && evalN < testSet.Len() {
		testSet = head(testSet, evalN)
	}
	for epoch := range epochs {
		tr.ResetLoss()
		for b := range loader.Epoch(epoch) {
			if steps > 0 && b.Index >= steps {
				break
			}
			if err := tr.Step(b.X, b.Shape, b.Y); err != nil {
				return err
			}
		}
		loss, err := tr.MeanLoss()
		if err != nil {
			return err
		}
		acc, testLoss, err := train.Evaluate(dev, model, testSet, 256)
		if err != nil {
			return err
		}
		if err := nn.Save(ckpt, model, nn.WithMetadata(map[string]string{"epoch": fmt.Sprint(epoch + 1)})); err != nil {
			return err
		}
		fmt.Printf("epoch %d: train loss %.4f, test loss %.4f, test accuracy %.2f%%, saved %s\n", epoch+1, loss, testLoss, 100*acc, ckpt)
	}
	return nil
}

// head returns the first n samples of ds, sharing its memory.
func head(ds *data.Dataset, n int) *data.Dataset {
	ss := ds.SampleSize()
	return &data.Dataset{X: ds.X[:n*ss], Shape: ds.Shape, Y: ds.Y[:n], NumClasses: ds.NumClasses}
}
