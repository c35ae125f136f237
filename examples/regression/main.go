package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
	_ "github.com/shaderflow/shaderflow/tensor/backends"
)

func main() {
	backend := flag.String("backend", "auto", "device to train on: auto, cpu, vulkan, webgpu, vulkan:1, ...")
	steps := flag.Int("steps", 1000, "optimizer steps")
	flag.Parse()
	if err := run(*backend, *steps); err != nil {
		fmt.Fprintln(os.Stderr, "regression:", err)
		os.Exit(1)
	}
}

func run(backend string, steps int) error {
	dev, err := tensor.Open(backend)
	if err != nil {
		return err
	}
	defer dev.Close()
	fmt.Printf("device %s (%s)\n", dev.Name(), dev.Why())

	gen := tensor.NewGenerator(1)
	// 256 points of y = sin(x) + noise for x in [-π, π).
	x := tensor.Arange(dev, -math.Pi, math.Pi, 2*math.Pi/256).Reshape(-1, 1)
	y := x.Sin().Add(gen.Randn(dev, 256, 1).MulScalar(0.05))
	g := nn.WithGenerator(gen)
	model := nn.NewSequential(nn.NewLinear(dev, 1, 32, g), nn.NewTanh(), nn.NewLinear(dev, 32, 1, g))
	tr := train.NewTrainer(dev, model, optim.NewAdam(nn.Parameters(model), optim.AdamConfig{LR: 0.01}))
	tr.Loss = nn.MSE
	for step := 1; step <= steps; step++ {
		if err := tr.StepTensors(x, y); err != nil {
			return err
		}
		if step%max(steps/5, 1) == 0 || step == steps {
			loss, err := tr.MeanLoss()
			if err != nil {
				return err
			}
			fmt.Printf("step %d: mean squared error %.5f\n", step, loss)
			tr.ResetLoss()
		}
	}
	return nil
}
