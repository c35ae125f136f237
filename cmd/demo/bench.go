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
	"strconv"
	"strings"

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
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist):
		fmt.Printf("PyTorch comparison skipped: %s not found (%s names another interpreter)\n", python, pythonEnv)
		return nil
	case errors.As(err, &exit) && exit.ExitCode() == 77:
		fmt.Println("PyTorch comparison skipped: torch or numpy is not installed for", python)
		return nil
	case errors.As(err, &exit) && exit.ExitCode() == 78:
		fmt.Printf("PyTorch comparison skipped: the torch of %s has no CUDA device (--torch-device cpu compares with its CPU side)\n", python)
		return nil
	case err != nil:
		return fmt.Errorf("PyTorch side: %w", err)
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
	fmt.Printf("%-6s %14s %14s %10s %12s %12s\n", "epoch", "shaderflow s", "pytorch s", "speedup", "sf acc %", "torch acc %")
	for i := range min(len(ours), len(theirs)) {
		o, t := ours[i], theirs[i]
		fmt.Printf("%-6d %14.3f %14.3f %9.2fx %12.2f %12.2f\n", i+1, o.Seconds, t.Seconds, t.Seconds/o.Seconds, 100*o.Accuracy, 100*t.Accuracy)
	}
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("machine load average (1, 5, 15 min) after the runs: %s", la)
	}
	fmt.Println("speedup = PyTorch time / Shaderflow time per epoch (training steps only; evaluation excluded)")
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
