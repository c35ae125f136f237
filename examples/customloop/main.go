package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/tensor"
	_ "github.com/shaderflow/shaderflow/tensor/backends"
)

func main() {
	backend := flag.String("backend", "auto", "device to train on: auto, cpu, vulkan, webgpu, vulkan:1, ...")
	steps := flag.Int("steps", 1000, "optimizer steps")
	flag.Parse()
	if err := run(*backend, *steps); err != nil {
		fmt.Fprintln(os.Stderr, "customloop:", err)
		os.Exit(1)
	}
}

// spirals returns n points of two interleaved spirals and their classes.
func spirals(n int) ([]float32, []int32) {
	xs := make([]float32, 0, 2*n)
	ys := make([]int32, 0, n)
	for i := range n {
		c := i % 2
		r := float64(i/2) / float64(n/2)
		a := 3*math.Pi*r + math.Pi*float64(c)
		xs = append(xs, float32(r*math.Cos(a)), float32(r*math.Sin(a)))
		ys = append(ys, int32(c))
	}
	return xs, ys
}

func run(backend string, steps int) error {
	dev, err := tensor.Open(backend)
	if err != nil {
		return err
	}
	defer dev.Close()
	fmt.Printf("device %s (%s)\n", dev.Name(), dev.Why())

	xs, ys := spirals(512)
	x := tensor.FromFloat32s(dev, xs, len(ys), 2)
	y := tensor.FromInt32s(dev, ys, len(ys))
	g := nn.WithGenerator(tensor.NewGenerator(1))
	model := nn.NewSequential(
		nn.NewLinear(dev, 2, 64, g), nn.NewReLU(),
		nn.NewLinear(dev, 64, 64, g), nn.NewReLU(),
		nn.NewLinear(dev, 64, 2, g),
	)
	opt := optim.NewAdamW(nn.Parameters(model), optim.AdamConfig{LR: 0.01, WeightDecay: 1e-4})
	sched := optim.NewCosineLR(opt, steps, 1e-4)
	for step := 1; step <= steps; step++ {
		report := step%max(steps/5, 1) == 0 || step == steps
		err := dev.ScopeErr(func() error {
			logits := model.Forward(x)
			loss := nn.CrossEntropy(logits, y)
			if report {
				l, err := loss.Item()
				if err != nil {
					return err
				}
				acc, err := nn.Accuracy(logits.Detach(), y).Item()
				if err != nil {
					return err
				}
				fmt.Printf("step %d: loss %.4f, accuracy %.1f%%, lr %.5f\n", step, l, 100*acc, opt.LR())
			}
			if err := loss.Backward(); err != nil {
				return err
			}
			defer opt.ZeroGrad()
			return opt.Step()
		})
		if err != nil {
			return fmt.Errorf("step %d: %w", step, err)
		}
		sched.Step()
	}
	return nil
}
