package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/shaderflow/shaderflow/internal/torchref"
	"github.com/shaderflow/shaderflow/tensor/bench"
)

//go:embed torch_bench.py
var torchScript string

// python is the interpreter whose torch is the peer.
const python = "/usr/bin/python3"

// torchResult is one benchmark as the script reports it.
type torchResult struct {
	Name     string             `json:"name"`
	Threads  int                `json:"threads"`
	Variants map[string][]int64 `json:"variants"` // "alloc", "out": samples in ns
}

// torchOutput is everything the script measured.
type torchOutput struct {
	Version string
	Results map[string]torchResult
}

// torchSpec is the JSON the script reads.
type torchSpec struct {
	settings
	Cases []benchCase `json:"cases"`
}

// torchSession is the script running alongside the Go side: it times the
// spec's benchmarks one at a time, when asked, so that each is measured by
// both sides within seconds of each other.
type torchSession struct {
	cmd     *exec.Cmd
	dir     string
	stdin   io.WriteCloser
	lines   *bufio.Scanner
	stderr  bytes.Buffer
	timeout time.Duration
	out     torchOutput
	closed  bool
}

// startTorch starts the embedded script for cs: it is written to a
// temporary file and run by /usr/bin/python3 with OPENBLAS_CORETYPE unset
// (so OpenBLAS picks its kernels for this CPU). It returns an error saying
// why when python3 or torch is missing. timeout bounds each benchmark.
func startTorch(cs []benchCase, s settings, timeout time.Duration) (*torchSession, error) {
	if _, err := os.Stat(python); err != nil {
		return nil, fmt.Errorf("%s not found: %w", python, err)
	}
	dir, err := os.MkdirTemp("", "shaderflow-bench-")
	if err != nil {
		return nil, err
	}
	t := &torchSession{dir: dir, timeout: timeout, out: torchOutput{Results: map[string]torchResult{}}}
	if err := t.start(cs, s); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

func (t *torchSession) start(cs []benchCase, s settings) error {
	script, spec := filepath.Join(t.dir, "torch_bench.py"), filepath.Join(t.dir, "spec.json")
	js, err := json.Marshal(torchSpec{settings: s, Cases: cs})
	if err != nil {
		return err
	}
	if err := os.WriteFile(script, []byte(torchScript), 0o600); err != nil {
		return err
	}
	if err := torchref.WriteGPT(t.dir); err != nil { // the GPT cases' model, imported by the script
		return err
	}
	if err := os.WriteFile(spec, js, 0o600); err != nil {
		return err
	}
	t.cmd = exec.Command("env", "-u", "OPENBLAS_CORETYPE", python, script, spec)
	t.cmd.Stderr = &t.stderr
	if t.stdin, err = t.cmd.StdinPipe(); err != nil {
		return err
	}
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := t.cmd.Start(); err != nil {
		return err
	}
	t.lines = bufio.NewScanner(stdout)
	t.lines.Buffer(make([]byte, 1<<20), 1<<26)
	var hello struct {
		Version string `json:"version"`
	}
	if err := t.readLine(&hello); err != nil {
		return err
	}
	t.out.Version = hello.Version
	return nil
}

// readLine decodes the script's next output line into v, within the
// session's timeout.
func (t *torchSession) readLine(v any) error {
	done := make(chan bool, 1)
	go func() { done <- t.lines.Scan() }()
	select {
	case ok := <-done:
		if !ok {
			return fmt.Errorf("PyTorch script ended: %s", t.why())
		}
	case <-time.After(t.timeout):
		_ = t.cmd.Process.Kill()
		return fmt.Errorf("PyTorch script timed out after %s", t.timeout)
	}
	if err := json.Unmarshal(t.lines.Bytes(), v); err != nil {
		return fmt.Errorf("PyTorch script output: %w", err)
	}
	return nil
}

// why returns the last line the script wrote to stderr (the exception).
func (t *torchSession) why() string {
	msg := strings.TrimSpace(t.stderr.String())
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	if msg == "" {
		msg = "no error message"
	}
	return msg
}

// next times the spec's next benchmark.
func (t *torchSession) next() (torchResult, error) {
	if _, err := io.WriteString(t.stdin, "go\n"); err != nil {
		return torchResult{}, fmt.Errorf("PyTorch script: %w (%s)", err, t.why())
	}
	var r torchResult
	if err := t.readLine(&r); err != nil {
		return torchResult{}, err
	}
	t.out.Results[r.Name] = r
	return r, nil
}

// close ends the script and removes its files; later calls do nothing.
func (t *torchSession) close() {
	if t.closed {
		return
	}
	t.closed = true
	if t.stdin != nil {
		t.stdin.Close()
	}
	if t.cmd != nil && t.cmd.Process != nil {
		done := make(chan struct{})
		go func() {
			_ = t.cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = t.cmd.Process.Kill()
			<-done
		}
	}
	os.RemoveAll(t.dir)
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
