// Command demo opens the best available Shaderflow device (or the one named
// with --backend), shows what it is and why it was chosen, runs a few
// operations and checks their results, measures matmul GFLOP/s and
// elementwise GB/s, and prints the profiler summary and pool statistics.
// With --train it trains a reference model on Fashion-MNIST instead (with
// --bench, side by side with PyTorch on the same protocol).
//
//	go run ./cmd/demo
//	go run ./cmd/demo --backend vulkan
//	go run ./cmd/demo --backend cpu --train mlp --epochs 5
//	go run ./cmd/demo --train cnn --bench
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/shaderflow/shaderflow/tensor"
	_ "github.com/shaderflow/shaderflow/tensor/backends"
)

func main() {
	backend := flag.String("backend", "auto", `device to use: auto, cpu, vulkan, webgpu, cuda, or NAME:INDEX`)
	list := flag.Bool("list", false, "list the backends and their adapters, then exit")
	model := flag.String("train", "", "train a reference model on Fashion-MNIST instead of the checks: mlp or cnn")
	epochs := flag.Int("epochs", 0, "training epochs (default 5 for mlp, 1 for cnn)")
	dataDir := flag.String("data", "", "directory of the Fashion-MNIST files (default: $SHADERFLOW_DATA, /usr/share/datasets/fashion-mnist)")
	bench := flag.Bool("bench", false, "with --train: also train with PyTorch (/usr/bin/python3) on the same protocol and compare")
	quiet := flag.Bool("quiet", false, "with --train: no progress bar")
	schedule := flag.String("schedule", "constant", "with --train: learning-rate schedule, constant (the reference protocol) or cosine (to 0 over the run, per batch)")
	seed := flag.Uint64("seed", 1, "with --train: seed of the initial weights and the shuffling (PyTorch's manual_seed with --bench)")
	torchDevice := flag.String("torch-device", "auto", "with --bench: PyTorch's device, cpu or cuda; auto: cuda when training on an NVIDIA GPU, else cpu ($SHADERFLOW_PYTHON names the interpreter, default /usr/bin/python3)")
	flag.Parse()
	if *list {
		printBackends()
		return
	}
	var tc *trainConfig
	if *model == "" && (*bench || *epochs != 0 || *dataDir != "" || *quiet || *schedule != "constant" || *seed != 1 || *torchDevice != "auto") {
		fmt.Fprintln(os.Stderr, "demo: --bench, --epochs, --data, --quiet, --schedule, --seed and --torch-device need --train mlp or --train cnn")
		os.Exit(2)
	}
	if *torchDevice != "auto" && *torchDevice != "cpu" && *torchDevice != "cuda" {
		fmt.Fprintf(os.Stderr, "demo: --torch-device %q: want auto, cpu or cuda\n", *torchDevice)
		os.Exit(2)
	}
	if *model != "" {
		tc = &trainConfig{model: *model, epochs: *epochs, dataDir: *dataDir, bench: *bench, quiet: *quiet,
			schedule: *schedule, seed: *seed, torchDevice: *torchDevice}
		if tc.epochs == 0 {
			tc.epochs = defaultEpochs(*model)
		}
	}
	if err := run(*backend, tc); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func printBackends() {
	for _, b := range tensor.Backends() {
		if !b.Available {
			fmt.Printf("  %-7s unavailable: %s\n", b.Name, b.Reason)
			continue
		}
		for i, a := range b.Adapters {
			fmt.Printf("  %-7s %s:%d  %s (%s)\n", b.Name, b.Name, i, a.Name, a.Kind)
		}
	}
}

func run(backend string, tc *trainConfig) error {
	dev, err := tensor.Open(backend)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Available backends:")
		printBackends()
		return err
	}
	defer dev.Close()
	info := dev.Info()
	fmt.Printf("Device:   %s\n", info)
	fmt.Printf("Chosen:   %s\n", dev.Why())
	fmt.Printf("Limits:   max alloc %d MiB, max binding %d MiB, %d buffers/kernel, workgroups %v\n",
		info.Limits.MaxAllocBytes>>20, info.Limits.MaxBindingBytes>>20, info.Limits.MaxBuffersPerKernel, info.Limits.MaxWorkgroups)
	fmt.Printf("Features: f16=%v subgroups=%v timestamps=%v simd=%q\n\n",
		info.Features.Float16, info.Features.Subgroups, info.Features.Timestamps, info.Features.SIMD)

	if tc != nil {
		return runTraining(dev, *tc)
	}
	dev.Profiler().SetEnabled(true)
	if err := checks(dev); err != nil {
		return err
	}
	fmt.Println()
	if err := measure(dev); err != nil {
		return err
	}
	fmt.Println()
	return dev.Profiler().WriteSummary(os.Stdout, dev.PoolStats())
}
