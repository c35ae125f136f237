package main

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/shaderflow/shaderflow/cpu"
	"github.com/shaderflow/shaderflow/nn/data"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// torchScript is the PyTorch side of --bench, written to a temporary file
// and run with pythonPath's interpreter.
//
//go:embed torchbench.py
var torchScript string

// defaultPython is the interpreter with Debian's python3-torch; the
// environment variable pythonEnv names another (one whose torch has CUDA).
const (
	defaultPython = "/usr/bin/python3"
	pythonEnv     = "SHADERFLOW_PYTHON"
)

// pythonPath returns the interpreter that runs the PyTorch side.
func pythonPath() string {
	if p := os.Getenv(pythonEnv); p != "" {
		return p
	}
	return defaultPython
}

// torchDeviceFor resolves --torch-device: auto is cuda when Shaderflow
// trains on a hardware NVIDIA GPU (PyTorch CUDA on the same GPU), else cpu.
func torchDeviceFor(choice string, info device.Info) string {
	if choice != "auto" {
		return choice
	}
	hardware := info.Kind != device.KindCPU && info.Kind != device.KindSoftwareGPU
	if hardware && strings.Contains(strings.ToUpper(info.Name), "NVIDIA") {
		return "cuda"
	}
	return "cpu"
}

// torchSettings returns the fair thread settings on this kind of machine
// (see docs): the MLP with one torch thread; the CNN with two torch threads
// and single-threaded OpenBLAS, so that the two thread pools do not fight.
// OPENBLAS_CORETYPE is unset so that OpenBLAS picks its AVX-512 kernels.
func torchSettings(model string) (threads int, env []string) {
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OPENBLAS_CORETYPE=") && !strings.HasPrefix(kv, "OPENBLAS_NUM_THREADS=") {
			env = append(env, kv)
		}
	}
	if model == "cnn" {
		return 2, append(env, "OPENBLAS_NUM_THREADS=1")
	}
	return 1, env
}

// compareWithTorch runs the same protocol in PyTorch and prints both sides.
// A missing python3 or torch is reported and skipped, not an error.
func compareWithTorch(dev *tensor.Device, cfg trainConfig, ours []epochResult) error {
	dir, err := fashionDir(cfg.dataDir)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp("", "shaderflow-torchbench-*.py")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(torchScript); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	threads, env := torchSettings(cfg.model)
	python, on := pythonPath(), torchDeviceFor(cfg.torchDevice, dev.Info())
	fmt.Printf("\nPyTorch on the same protocol (%s, %s, %d torch thread(s)) ...\n", python, on, threads)
	cmd := exec.Command(python, f.Name(), dir, cfg.model, strconv.Itoa(cfg.epochs), strconv.Itoa(threads),
		strconv.FormatUint(cfg.seed, 10), cfg.schedule, on)
	cmd.Env = env
	out, ran, err := runTorchSide(python, cmd)
	if !ran || err != nil {
		return err
	}
	theirs, version, err := parseTorch(out)
	if err != nil {
		return err
	}
	printComparison(dev, cfg, ours, theirs, version, on, threads)
	return nil
}

// parseTorch reads the script's JSON lines.
func parseTorch(out []byte) ([]epochResult, string, error) {
	var rs []epochResult
	version := ""
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var r struct {
			epochResult
			Torch string `json:"torch"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, "", fmt.Errorf("PyTorch side printed %q: %w", sc.Text(), err)
		}
		rs = append(rs, r.epochResult)
		version = r.Torch
	}
	return rs, version, nil
}

// printComparison prints both sides epoch by epoch, with the load of the
// machine while they ran.
func printComparison(dev *tensor.Device, cfg trainConfig, ours, theirs []epochResult, version, on string, threads int) {
	where := fmt.Sprintf("%d thread(s)", threads)
	if on != "cpu" {
		where = on
	}
	fmt.Printf("\n%s, batch %d: Shaderflow on %s vs PyTorch %s (%s)\n", cfg.model, batchSize, dev.Info().Name, version, where)
	// On the CPU each epoch is also read against the FMA peak measured
	// right after both sides ran (on every core: Shaderflow's setting).
	peak, flops := 0.0, epochFLOPs(cfg.model)
	if dev.Info().Kind == device.KindCPU && flops > 0 {
		peak = cpu.PeakGFLOPS(runtime.GOMAXPROCS(0), 300*time.Millisecond)
	}
	fmt.Printf("%-6s %14s %14s %10s %12s %12s", "epoch", "shaderflow s", "pytorch s", "speedup", "sf acc %", "torch acc %")
	if peak > 0 {
		fmt.Printf(" %10s %10s", "sf peak %", "torch %")
	}
	fmt.Println()
	for i := range min(len(ours), len(theirs)) {
		o, t := ours[i], theirs[i]
		fmt.Printf("%-6d %14.3f %14.3f %9.2fx %12.2f %12.2f", i+1, o.Seconds, t.Seconds, t.Seconds/o.Seconds, 100*o.Accuracy, 100*t.Accuracy)
		if peak > 0 {
			fmt.Printf(" %10.1f %10.1f", 100*flops/1e9/o.Seconds/peak, 100*flops/1e9/t.Seconds/peak)
		}
		fmt.Println()
	}
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("machine load average (1, 5, 15 min) after the runs: %s", la)
	}
	fmt.Println("speedup = PyTorch time / Shaderflow time per epoch (training steps only; evaluation excluded)")
	if peak > 0 {
		fmt.Printf("peak %% = the epoch's %.1f GFLOP of products and convolutions per second, as a percentage of the %.1f GFLOP/s FMA peak measured after the runs\n", flops/1e9, peak)
	}
}

// fashionTrain is the number of Fashion-MNIST training images, one epoch.
const fashionTrain = 60000

// epochFLOPs returns the floating-point operations of one training epoch
// of the reference model (nn/train.MLP and CNN, their layers' sizes
// repeated here): 2·in·out per output element of each product or
// convolution for the forward pass, as much for the weight gradient and
// again for the input gradient except in the first layer, which needs
// none; elementwise work, pooling and the optimizer are not counted. 0 for
// another model.
func epochFLOPs(model string) float64 {
	layer := func(macs int, first bool) float64 {
		if first {
			return 4 * float64(macs)
		}
		return 6 * float64(macs)
	}
	var perSample float64
	switch model {
	case "mlp":
		perSample = layer(784*128, true) + layer(128*10, false)
	case "cnn": // 3x3 "same" convolutions on 28x28 and 14x14 images
		perSample = layer(1*32*9*28*28, true) + layer(32*64*9*14*14, false) + layer(64*7*7*128, false) + layer(128*10, false)
	default:
		return 0
	}
	return perSample * fashionTrain
}

// fashionDir returns the directory holding the Fashion-MNIST files: dir
// when given, else the places nn/data searches.
func fashionDir(dir string) (string, error) {
	cands := []string{dir}
	if dir == "" {
		cands = nil
		if env := os.Getenv(data.DefaultDataEnv); env != "" {
			cands = append(cands, filepath.Join(env, "fashion-mnist"), env)
		}
		cands = append(cands, "/usr/share/datasets/fashion-mnist")
	}
	for _, d := range cands {
		for _, name := range []string{"train-images-idx3-ubyte", "train-images-idx3-ubyte.gz"} {
			if _, err := os.Stat(filepath.Join(d, name)); err == nil {
				return d, nil
			}
		}
	}
	return "", fmt.Errorf("%w: looked in %v", data.ErrDatasetNotFound, cands)
}

// runTorchSide runs a PyTorch script's command and returns its standard
// output; ran is false, after saying why, where the comparison is skipped
// (no interpreter, no torch, no CUDA device for a CUDA comparison).
func runTorchSide(python string, cmd *exec.Cmd) (out []byte, ran bool, err error) {
	cmd.Stderr = os.Stderr
	out, err = cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist):
		fmt.Printf("PyTorch comparison skipped: %s not found (%s names another interpreter)\n", python, pythonEnv)
		return nil, false, nil
	case errors.As(err, &exit) && exit.ExitCode() == 77:
		fmt.Println("PyTorch comparison skipped: torch or numpy is not installed for", python)
		return nil, false, nil
	case errors.As(err, &exit) && exit.ExitCode() == 78:
		fmt.Printf("PyTorch comparison skipped: the torch of %s has no CUDA device (--torch-device cpu compares with its CPU side)\n", python)
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("PyTorch side: %w", err)
	}
	return out, true, nil
}
