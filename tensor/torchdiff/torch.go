package torchdiff

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// replayScript replays programs in PyTorch; see replay.py.
//
//go:embed replay.py
var replayScript []byte

// DefaultPython is the interpreter expected to have torch; the environment
// variable SHADERFLOW_TORCH_PYTHON overrides it.
const DefaultPython = "/usr/bin/python3"

// Python returns the interpreter to run the replay with.
func Python() string {
	if p := os.Getenv("SHADERFLOW_TORCH_PYTHON"); p != "" {
		return p
	}
	return DefaultPython
}

// TorchAvailable returns nil when python can import torch, else why not.
func TorchAvailable(python string) error {
	out, err := exec.Command(python, "-c", "import torch, numpy").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s cannot import torch and numpy: %v: %s", python, err, bytes.TrimSpace(out))
	}
	return nil
}

// TorchResult is PyTorch's replay of one program: output and input
// gradients in float32 and in float64, and whether a max, min, maximum or
// minimum met a tie (where the gradient is a convention, not a derivative).
type TorchResult struct {
	Seed   uint64
	Shape  []int
	Out32  []float64
	Out64  []float64
	Grad32 [][]float64
	Grad64 [][]float64
	Tie    bool
	Error  string // the Python traceback when the replay failed
}

// RunTorch replays every program in one Python process and returns the
// results in the same order.
func RunTorch(python string, programs []*Program) ([]*TorchResult, error) {
	dir, err := os.MkdirTemp("", "torchdiff")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "replay.py")
	if err := os.WriteFile(script, replayScript, 0o600); err != nil {
		return nil, err
	}
	in, err := json.Marshal(map[string]any{"programs": programs})
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(python, script)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s replay.py: %v\n%s", python, err, stderr.String())
	}
	var doc struct {
		Results []struct {
			Seed    uint64   `json:"seed"`
			Shape   []int    `json:"shape"`
			Out32   string   `json:"out32"`
			Out64   string   `json:"out64"`
			Grads32 []string `json:"grads32"`
			Grads64 []string `json:"grads64"`
			Tie     bool     `json:"tie"`
			Error   string   `json:"error"`
		} `json:"results"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		return nil, fmt.Errorf("decoding the replay's output: %v", err)
	}
	if len(doc.Results) != len(programs) {
		return nil, fmt.Errorf("the replay returned %d results for %d programs", len(doc.Results), len(programs))
	}
	out := make([]*TorchResult, len(programs))
	for i, r := range doc.Results {
		t := &TorchResult{Seed: r.Seed, Shape: r.Shape, Tie: r.Tie, Error: r.Error}
		out[i] = t
		if r.Error != "" {
			continue
		}
		if t.Out32, err = decodeFloats(r.Out32, 4); err != nil {
			return nil, err
		}
		if t.Out64, err = decodeFloats(r.Out64, 8); err != nil {
			return nil, err
		}
		for j := range r.Grads32 {
			g32, err := decodeFloats(r.Grads32[j], 4)
			if err != nil {
				return nil, err
			}
			g64, err := decodeFloats(r.Grads64[j], 8)
			if err != nil {
				return nil, err
			}
			t.Grad32 = append(t.Grad32, g32)
			t.Grad64 = append(t.Grad64, g64)
		}
	}
	return out, nil
}
