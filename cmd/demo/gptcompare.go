package main

import (
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shaderflow/shaderflow/internal/torchref"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
)

// gptScript is the PyTorch side of --train gpt --bench.
//
//go:embed gptbench.py
var gptScript string

// gptTorchThreads is PyTorch's thread count for the GPT: one, the setting
// under which the baseline (about 7000 tokens/s on this kind of
// 2-core machine) was measured and at which torch's small per-op kernels
// are fastest here.
const gptTorchThreads = 1

// compareGPTWithTorch writes the corpus and the batch offsets to a
// temporary directory, runs gptbench.py for the same steps, and prints both
// sides' speed and losses. A missing python3 or torch is reported and
// skipped, not an error.
func compareGPTWithTorch(dev *tensor.Device, cfg trainConfig, d *gptData, ours gptResult) error {
	dir, err := os.MkdirTemp("", "shaderflow-gptbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := torchref.WriteGPT(dir); err != nil {
		return err
	}
	script, text, offs := filepath.Join(dir, "gptbench.py"), filepath.Join(dir, "corpus.txt"), filepath.Join(dir, "offsets.bin")
	raw := make([]byte, 0, 4*(len(d.trainOffs)+len(d.valOffs)))
	for _, o := range append(append([]int32{}, d.trainOffs...), d.valOffs...) {
		raw = binary.LittleEndian.AppendUint32(raw, uint32(o))
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{script, []byte(gptScript)}, {text, []byte(d.text)}, {offs, raw}} {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return err
		}
	}
	_, env := torchSettings("mlp") // OPENBLAS_CORETYPE unset, as for the other models
	python := pythonPath()
	fmt.Printf("\nPyTorch on the same data, batches and protocol (%s, cpu, %d thread) ...\n", python, gptTorchThreads)
	cmd := exec.Command(python, script, text, offs, strconv.Itoa(cfg.steps), strconv.Itoa(gptEvalBatches),
		strconv.Itoa(gptTorchThreads), strconv.FormatUint(cfg.seed, 10), torchref.SizesOf(train.CharGPTConfig(d.vocab.Size())).JSON())
	cmd.Env = env
	out, ran, err := runTorchSide(python, cmd)
	if !ran || err != nil {
		return err
	}
	var theirs struct {
		gptResult
		Torch string `json:"torch"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(out))), &theirs); err != nil {
		return fmt.Errorf("PyTorch side printed %q: %w", out, err)
	}
	t := theirs.gptResult
	fmt.Printf("\ngpt, %d steps of %dx%d tokens: Shaderflow on %s vs PyTorch %s (%d thread)\n",
		cfg.steps, gptBatch, gptContext, dev.Info().Name, theirs.Torch, gptTorchThreads)
	perCPU := func(r gptResult) float64 {
		if r.CPUSeconds <= 0 {
			return math.NaN()
		}
		return r.TokensPerS * r.Seconds / r.CPUSeconds
	}
	fmt.Printf("%-12s %12s %16s %12s %10s\n", "", "tokens/s", "tokens/CPU-s", "train loss", "val loss")
	fmt.Printf("%-12s %12.0f %16.0f %12.4f %10.4f\n", "shaderflow", ours.TokensPerS, perCPU(ours), ours.TrainLoss, ours.ValLoss)
	fmt.Printf("%-12s %12.0f %16.0f %12.4f %10.4f\n", "pytorch", t.TokensPerS, perCPU(t), t.TrainLoss, t.ValLoss)
	fmt.Printf("speed ratio %.2fx in tokens/s, %.2fx in tokens per CPU-second (Shaderflow / PyTorch); validation loss differs by %+.1f%%\n",
		ours.TokensPerS/t.TokensPerS, perCPU(ours)/perCPU(t), 100*(ours.ValLoss-t.ValLoss)/t.ValLoss)
	if math.Abs(ours.ValLoss-t.ValLoss) > 0.05*t.ValLoss {
		fmt.Println("note: the validation losses differ by more than 5% (short runs from different random weights differ most)")
	}
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("machine load average (1, 5, 15 min) after the runs: %s", la)
	}
	return nil
}
