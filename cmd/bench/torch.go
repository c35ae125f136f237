package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/shaderflow/shaderflow/tensor/bench"
)

//go:embed torch_bench.py
var torchScript string

// python is the interpreter whose torch is the peer.
const python = "/usr/bin/python3"

// torchOutput is what torch_bench.py prints.
type torchOutput struct {
	Version string `json:"version"`
	Results map[string]struct {
		Threads  int                `json:"threads"`
		Variants map[string][]int64 `json:"variants"` // "alloc", "out": samples in ns
	} `json:"results"`
}

// torchSpec is the JSON the script reads.
type torchSpec struct {
	settings
	Cases []benchCase `json:"cases"`
}

// runTorch times cs with PyTorch on this machine: the embedded script is
// written to a temporary file and run by /usr/bin/python3 with
// OPENBLAS_CORETYPE unset (so OpenBLAS picks its kernels for this CPU). It
// returns an error saying why when python3 or torch is missing or the script
// fails.
func runTorch(cs []benchCase, s settings, timeout time.Duration) (*torchOutput, error) {
	if _, err := os.Stat(python); err != nil {
		return nil, fmt.Errorf("%s not found: %w", python, err)
	}
	dir, err := os.MkdirTemp("", "shaderflow-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	script, spec := filepath.Join(dir, "torch_bench.py"), filepath.Join(dir, "spec.json")
	js, err := json.Marshal(torchSpec{settings: s, Cases: cs})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(script, []byte(torchScript), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(spec, js, 0o600); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "env", "-u", "OPENBLAS_CORETYPE", python, script, spec)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:] // the exception line
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			msg = "timed out after " + timeout.String()
		}
		return nil, fmt.Errorf("PyTorch script failed: %v: %s", err, msg)
	}
	return parseTorch(stdout.Bytes())
}

// parseTorch decodes the script's output.
func parseTorch(b []byte) (*torchOutput, error) {
	var out torchOutput
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("PyTorch script output: %w", err)
	}
	return &out, nil
}

// addPeers records PyTorch's allocating figure of every benchmark as the
// report's peer and notes its out= figure (a preallocated result) where the
// script measured one. Peers get the Go side's bytes and flops so that their
// rates compare.
func addPeers(rep *bench.Report, out *torchOutput) {
	rep.PeerName = "PyTorch " + out.Version
	rep.Peers = map[string]bench.Result{}
	for i := range rep.Results {
		res := &rep.Results[i]
		t, ok := out.Results[res.Name]
		if !ok || len(t.Variants["alloc"]) == 0 {
			continue
		}
		p := bench.FromSamples(res.Name, durations(t.Variants["alloc"]))
		p.Bytes, p.Flops, p.Limit = res.Bytes, res.Flops, res.Limit
		p.Note = fmt.Sprintf("%d thread(s)", t.Threads)
		rep.Peers[res.Name] = p
		note := fmt.Sprintf("PyTorch on %d thread(s)", t.Threads)
		if o := t.Variants["out"]; len(o) > 0 {
			po := bench.FromSamples(res.Name, durations(o))
			note += fmt.Sprintf("; with a preallocated result (out=): median %s, %.2f× vs ours", fmtDur(po.Median), float64(po.Median)/float64(res.Median))
		}
		addNote(res, note)
	}
}

// durations converts nanosecond samples.
func durations(ns []int64) []time.Duration {
	d := make([]time.Duration, len(ns))
	for i, v := range ns {
		d[i] = time.Duration(v)
	}
	return d
}

// addNote appends a sentence to a result's note.
func addNote(res *bench.Result, s string) {
	if res.Note != "" {
		res.Note += "; "
	}
	res.Note += s
}
