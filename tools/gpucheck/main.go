package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/shaderflow/shaderflow/tensor"
	_ "github.com/shaderflow/shaderflow/tensor/backends" // every backend
)

func main() {
	backend := flag.String("backend", "cuda", "device to measure, as tensor.Open takes it")
	out := flag.String("out", ".", "folder for report.md and report.json")
	torchScript := flag.String("torch", "", "torch_cuda.py, to measure PyTorch in the same run (skipped when empty)")
	python := flag.String("python", "python3", "the Python interpreter that has torch")
	only := flag.String("only", "", "step: measure only the training step (e.g. through the CUDA test double, where the 64M-element cases would take hours)")
	cpuProfile := flag.String("cpuprofile", "", "after the measurements, write a CPU profile of 500 more training steps (graphs off, then on) to this file")
	flag.Parse()
	if err := run(*backend, *out, *torchScript, *python, *only == "step"); err != nil {
		fmt.Fprintln(os.Stderr, "gpucheck:", err)
		os.Exit(1)
	}
	if *cpuProfile == "" {
		return
	}
	if err := profileSteps(*backend, *cpuProfile, 500); err != nil {
		fmt.Fprintln(os.Stderr, "gpucheck:", err)
		os.Exit(1)
	}
}

// run measures every case (only the training step with stepOnly) on
// backend, and on PyTorch when torchScript is set, and writes the reports
// into out.
func run(backend, out, torchScript, python string, stepOnly bool) error {
	d, err := tensor.Open(backend)
	if err != nil {
		return err
	}
	defer d.Close()
	rep := report{Device: d.Info().String(), Date: time.Now().UTC().Format(time.RFC3339)}
	all := cases()
	if stepOnly {
		all = nil
	}
	for _, c := range all {
		s, ks, err := measure(d, c)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		fmt.Fprintf(os.Stderr, "%-24s %10.1f us; kernels: %s\n", c.name, s*1e6, ks)
		rep.Rows = append(rep.Rows, row{Name: c.name, Seconds: s, Bytes: c.bytes, Flops: c.flops, Kernels: ks})
	}
	st, err := measureTrainStep(d, 3, 20)
	if err != nil {
		return fmt.Errorf("%s: %w", stepCase, err)
	}
	fmt.Fprintf(os.Stderr, "%-24s %10.1f us (graphs off), %.1f us (on): %s\n", stepCase, st.Off*1e6, st.On*1e6, st.Stats)
	rep.Rows = append(rep.Rows, row{Name: stepCase, Seconds: st.Off})
	if st.On > 0 {
		rep.Rows = append(rep.Rows, row{Name: stepCase + ", CUDA graphs", Seconds: st.On})
	}
	rep.Graphs = st.Stats
	if torchScript != "" {
		if err := rep.addTorch(python, torchScript); err != nil {
			rep.TorchError = err.Error()
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "report.json"), js, 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(out, "report.md"))
	if err != nil {
		return err
	}
	rep.writeMarkdown(io.MultiWriter(f, os.Stdout))
	return f.Close()
}

// profileSteps writes a CPU profile of steps training steps on backend
// (graphs off, then as many on where the device has them) to file: where
// the host's time goes in a step.
func profileSteps(backend, file string, steps int) error {
	d, err := tensor.Open(backend)
	if err != nil {
		return err
	}
	defer d.Close()
	if _, err := measureTrainStep(d, 20, 1); err != nil { // kernels compiled outside the profile
		return err
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return err
	}
	_, err = measureTrainStep(d, 0, steps)
	pprof.StopCPUProfile()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// measure runs c's warm-up, then times each run (the operation and a wait
// for its result), then profiles one more run on the same inputs; it
// returns the median in seconds and the profiled run's kernels.
func measure(d *tensor.Device, c benchCase) (float64, string, error) {
	in := c.setup(d)
	defer func() {
		for _, t := range in {
			t.Release()
		}
	}()
	warmup, runs := c.warmup, c.runs
	if runs == 0 {
		warmup, runs = 3, 10
	}
	once := func() (time.Duration, error) {
		start := time.Now()
		y := c.op(in)
		err := y.Realize()
		el := time.Since(start)
		y.Release()
		return el, err
	}
	for range warmup {
		if _, err := once(); err != nil {
			return 0, "", err
		}
	}
	times := make([]float64, runs)
	for i := range times {
		el, err := once()
		if err != nil {
			return 0, "", err
		}
		times[i] = el.Seconds()
	}
	slices.Sort(times)
	ks, err := profileKernels(d, c, in)
	return times[len(times)/2], ks, err
}

// profiledRuns is how many runs profileKernels averages.
const profiledRuns = 5

// profileKernels runs c's operation on in profiledRuns times with the
// profiler on and returns the kernels one run launched with their mean
// device times, and the median time of those runs end to end, e.g.
// "reduce 1x 120.3 us, elementwise 1x 80.1 us (runs 210.5 us)": a run
// that takes much longer than its kernels spends the rest on the host or
// between launches.
func profileKernels(d *tensor.Device, c benchCase, in []*tensor.Tensor) (string, error) {
	if err := d.Sync(); err != nil {
		return "", err
	}
	p := d.Profiler()
	p.Reset()
	p.SetEnabled(true)
	defer p.SetEnabled(false)
	walls := make([]float64, profiledRuns)
	for i := range walls {
		start := time.Now()
		y := c.op(in)
		err := y.Realize()
		y.Release()
		if err == nil {
			err = d.Sync()
		}
		if err != nil {
			return "", err
		}
		walls[i] = time.Since(start).Seconds()
	}
	slices.Sort(walls)
	var parts []string
	for _, r := range p.Rows() {
		if r.DeviceCount > 0 {
			parts = append(parts, fmt.Sprintf("%s %gx %.1f us", r.Name, float64(r.DeviceCount)/profiledRuns, r.DeviceTotal.Seconds()*1e6/profiledRuns))
		}
	}
	return fmt.Sprintf("%s (runs %.1f us)", strings.Join(parts, ", "), walls[len(walls)/2]*1e6), nil
}

// addTorch runs the PyTorch script and records its times beside ours.
func (r *report) addTorch(python, script string) error {
	cmd := exec.Command(python, script)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s %s: %w", python, script, err)
	}
	var t struct {
		Torch   string             `json:"torch"`
		Device  string             `json:"device"`
		Seconds map[string]float64 `json:"seconds"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return fmt.Errorf("reading %s's output: %w", script, err)
	}
	r.Torch = fmt.Sprintf("PyTorch %s on %s", t.Torch, t.Device)
	for i := range r.Rows {
		r.Rows[i].TorchSeconds = t.Seconds[r.Rows[i].Name]
	}
	return nil
}
