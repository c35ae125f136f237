package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/shaderflow/shaderflow/tensor"
	_ "github.com/shaderflow/shaderflow/tensor/backends"
)

func main() {
	var msg bytes.Buffer
	opts, err := parseArgs(os.Args[1:], &msg)
	if err == flag.ErrHelp { // asked for: usage on stdout, success
		_, _ = msg.WriteTo(os.Stdout)
		return
	}
	if err != nil {
		_, _ = msg.WriteTo(os.Stderr)
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(2)
	}
	if opts.list {
		printBackends()
		return
	}
	if err := run(opts.backend, opts.train); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// options is what the command line asks for.
type options struct {
	backend string
	list    bool
	train   *trainConfig // nil without --train
}

// parseArgs reads the command line, writing usage and flag errors to out;
// it refuses arguments that would be ignored or are out of range.
func parseArgs(args []string, out io.Writer) (options, error) {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(out)
	backend := fs.String("backend", "auto", `device to use: auto, cuda, vulkan, webgpu, cpu, or NAME:INDEX (--list shows them)`)
	list := fs.Bool("list", false, "list the backends and their adapters, then exit")
	model := fs.String("train", "", "train a reference model instead of the checks: mlp or cnn (Fashion-MNIST), gpt (a character GPT on the King James Bible)")
	epochs := fs.Int("epochs", 0, "training epochs, at least 1 (default 5 for mlp, 1 for cnn)")
	steps := fs.Int("steps", 0, fmt.Sprintf("with --train gpt: training steps of 32x128 tokens, at least 2 (default %d)", gptDefaultStep))
	dataDir := fs.String("data", "", "directory of the Fashion-MNIST files (default: $SHADERFLOW_DATA, /usr/share/datasets/fashion-mnist); with --train gpt, a text file to train on instead of the King James Bible")
	bench := fs.Bool("bench", false, "with --train: also train with PyTorch (/usr/bin/python3) on the same protocol and compare")
	quiet := fs.Bool("quiet", false, "with --train: no progress bar (none is drawn when stderr is not a terminal)")
	schedule := fs.String("schedule", "constant", "with --train: learning-rate schedule, constant (the reference protocol) or cosine (to 0 over the run, per batch)")
	seed := fs.Uint64("seed", 1, "with --train: seed of the initial weights and the shuffling (PyTorch's manual_seed with --bench)")
	torchDevice := fs.String("torch-device", "auto", "with --bench: PyTorch's device, cpu or cuda; auto: cuda when training on an NVIDIA GPU, else cpu ($SHADERFLOW_PYTHON names the interpreter, default /usr/bin/python3)")
	fs.Usage = func() { usage(fs) }
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	opts := options{backend: *backend, list: *list}
	switch {
	case fs.NArg() > 0:
		return opts, fmt.Errorf("unexpected argument %q (flags start with --)", fs.Arg(0))
	case *model == "" && (set["bench"] || set["epochs"] || set["steps"] || set["data"] || set["quiet"] || set["schedule"] || set["seed"] || set["torch-device"]):
		return opts, fmt.Errorf("--bench, --epochs, --steps, --data, --quiet, --schedule, --seed and --torch-device need --train")
	case *model != "" && *model != "mlp" && *model != "cnn" && *model != "gpt":
		return opts, fmt.Errorf("--train %q: want mlp, cnn or gpt", *model)
	case *model == "gpt" && (set["epochs"] || set["schedule"] || set["torch-device"]):
		return opts, fmt.Errorf("--train gpt trains for --steps on its own schedule on the CPU's PyTorch: --epochs, --schedule and --torch-device do not apply")
	case *model != "gpt" && set["steps"]:
		return opts, fmt.Errorf("--steps is for --train gpt; mlp and cnn train for --epochs")
	case set["steps"] && *steps < 2:
		return opts, fmt.Errorf("--steps %d: want at least 2", *steps)
	case set["epochs"] && *epochs < 1:
		return opts, fmt.Errorf("--epochs %d: want at least 1", *epochs)
	case *schedule != "constant" && *schedule != "cosine":
		return opts, fmt.Errorf("--schedule %q: want constant or cosine", *schedule)
	case *torchDevice != "auto" && *torchDevice != "cpu" && *torchDevice != "cuda":
		return opts, fmt.Errorf("--torch-device %q: want auto, cpu or cuda", *torchDevice)
	case *list && *model != "":
		return opts, fmt.Errorf("--list and --train exclude each other")
	}
	if *model != "" {
		opts.train = &trainConfig{model: *model, epochs: *epochs, dataDir: *dataDir, bench: *bench, quiet: *quiet,
			schedule: *schedule, seed: *seed, torchDevice: *torchDevice, steps: *steps}
		if !set["steps"] {
			opts.train.steps = gptDefaultStep
		}
		if !set["epochs"] {
			opts.train.epochs = defaultEpochs(*model)
		}
	}
	return opts, nil
}

// usage prints what the demo does, how to call it and its flags.
func usage(fs *flag.FlagSet) {
	fmt.Fprint(fs.Output(), `demo: Shaderflow's demo. Picks the best device (or the one --backend names),
checks a few results, measures matmul and elementwise speed and prints the
profiler's summary; with --train it trains a reference model on Fashion-MNIST
(mlp, cnn) or a character-level GPT on the King James Bible (gpt).

Usage:
  go run ./cmd/demo [--backend NAME] [--list]
  go run ./cmd/demo --train mlp|cnn [--epochs N] [--bench] [--schedule constant|cosine] [--seed N]
  go run ./cmd/demo --train gpt [--steps N] [--bench] [--seed N] [--data FILE]

Flags:
`)
	fs.PrintDefaults()
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
	fmt.Printf("Limits:   max alloc %d MiB, max binding %d MiB, %d buffers/kernel",
		info.Limits.MaxAllocBytes>>20, info.Limits.MaxBindingBytes>>20, info.Limits.MaxBuffersPerKernel)
	if wg := info.Limits.MaxWorkgroups; wg != [3]int{} {
		fmt.Printf(", workgroups per dispatch %v", wg)
	}
	fmt.Println()
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
	return writeProfile(dev)
}

// writeProfile prints the profiler's summary of the kernels run so far and
// the memory pool's statistics, each under a line that says what it is.
func writeProfile(dev *tensor.Device) error {
	fmt.Println("Profile: kernels run above, by kind (count, total, mean, max and min time each;")
	fmt.Println("fusion: " + dev.FusionStats().String() + "), then the device memory pool:")
	return dev.Profiler().WriteSummary(os.Stdout, dev.PoolStats())
}
