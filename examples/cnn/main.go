// Command cnn trains the reference convolutional network on Fashion-MNIST
// with train.Trainer, evaluates it on the test set after every epoch and
// saves a safetensors checkpoint (which --resume loads before training).
// A CNN epoch is much slower than the MLP's; --steps and --eval shorten a run:
//
//	go run ./examples/cnn --steps 100 --eval 1000
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
	ckpt := flag.String("checkpoint", "cnn.safetensors", "checkpoint file written after every epoch")
	resume := flag.Bool("resume", false, "load --checkpoint before training")
	flag.Parse()
	if err := run(*backend, *dataDir, *ckpt, *epochs, *steps, *evalN, *resume); err != nil {
		fmt.Fprintln(os.Stderr, "cnn:", err)
		if errors.Is(err, data.ErrDatasetNotFound) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func run(backend, dataDir, ckpt string, epochs, steps, evalN int, resume bool) error {
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

	model := train.CNN(dev, tensor.NewGenerator(1))
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
