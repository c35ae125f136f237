package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/shaderflow/shaderflow/cpu" // registers the cpu backend
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/bench"
	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/shaderflow/shaderflow/tensor/profiler"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command's flags.
type options struct {
	backend   string
	out       string
	baseline  string
	tolerance float64
	quick     bool
	noTorch   bool
	only      string
}

// run is the command with its arguments and output streams; it returns the
// exit status.
func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.backend, "backend", "cpu", "device to benchmark, as tensor.Open takes it")
	fs.StringVar(&o.out, "out", "", "directory for report.md, report.json and report.png")
	fs.StringVar(&o.baseline, "baseline", "", "report.json of an earlier run to check for regressions")
	fs.Float64Var(&o.tolerance, "tolerance", 0.1, "with -baseline, the slowdown allowed (0.1 = 10%)")
	fs.BoolVar(&o.quick, "quick", false, "fewer iterations and shorter limit measurements")
	fs.BoolVar(&o.noTorch, "no-torch", false, "skip the PyTorch comparison")
	fs.StringVar(&o.only, "run", "", "only benchmarks whose name matches this regular expression")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usageText)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := bench1(o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	return 0
}

// bench1 runs the benchmarks and writes the report.
func bench1(o options, stdout, stderr io.Writer) error {
	cs := cases()
	if o.only != "" {
		re, err := regexp.Compile(o.only)
		if err != nil {
			return fmt.Errorf("-run: %w", err)
		}
		var keep []benchCase
		for _, c := range cs {
			if re.MatchString(c.Name) {
				keep = append(keep, c)
			}
		}
		cs = keep
	}
	dev, err := tensor.Open(o.backend)
	if err != nil {
		return err
	}
	defer dev.Close()
	cs, cleanup := prepareONNX(cs, stderr)
	defer cleanup()
	info := dev.Info()
	s := newSettings(o.quick)
	rep := bench.NewReport(info)
	isa := info.Features.SIMD
	if isa != "" {
		rep.Driver += ", ISA " + isa
	}
	load0 := loadAverage()
	if info.Kind == device.KindCPU {
		fmt.Fprintln(stderr, "measuring the machine's limits...")
		rep.Limits = map[string]float64{}
		measureLimits(rep.Limits, o.quick, cpu.GemmISA())
	}
	noPeer := ""
	var torch *torchSession
	var peers *torchOutput
	if !o.noTorch {
		fmt.Fprintln(stderr, "starting PyTorch...")
		timeout := 10 * time.Minute
		if torch, err = startTorch(cs, s, timeout); err != nil {
			fmt.Fprintln(stderr, "no PyTorch comparison:", err)
			noPeer = "; no PyTorch comparison: " + err.Error()
		} else {
			peers = &torch.out
			defer torch.close()
		}
	}
	for _, c := range cs {
		fmt.Fprintf(stderr, "%s...\n", c.Name)
		res, err := runCase(dev, c, s)
		if err != nil {
			return err
		}
		if info.Kind == device.KindCPU {
			addNote(&res, localLimit(rep.Limits, c, res))
		}
		rep.Results = append(rep.Results, res)
		if torch != nil { // right after ours, under the same load
			if _, err := torch.next(); err != nil {
				fmt.Fprintln(stderr, "PyTorch comparison stopped:", err)
				noPeer = "; PyTorch comparison stopped: " + err.Error()
				torch.close()
				torch = nil
			}
		}
	}
	if peers != nil && len(peers.Results) > 0 { // what PyTorch measured, even before a failure
		addPeers(&rep, peers)
	}
	addTokenRates(&rep, cs)
	if info.Kind == device.KindCPU {
		fmt.Fprintln(stderr, "measuring the machine's limits again...")
		measureLimits(rep.Limits, o.quick, cpu.GemmISA())
		checkTargets(&rep) // notes on the results, printed with the report
	}
	rep.Title = fmt.Sprintf("Shaderflow benchmarks: %s (%s), machine load %s at start, %s at end (1, 5, 15 min)%s",
		info.Backend, orNone(isa), load0, loadAverage(), noPeer)
	if err := rep.WriteMarkdown(stdout); err != nil {
		return err
	}
	if o.out != "" {
		if err := writeReport(rep, o.out); err != nil {
			return err
		}
	}
	if o.baseline != "" {
		return compareBaseline(rep, o.baseline, o.tolerance, stdout)
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "no SIMD"
	}
	return s
}

// writeReport writes report.md, report.json and report.png into dir.
func writeReport(rep bench.Report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, write := range map[string]func(io.Writer) error{"report.md": rep.WriteMarkdown, "report.json": rep.WriteJSON} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := write(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return rep.WritePNG(filepath.Join(dir, "report.png"))
}

// regressionError reports benchmarks slower than the baseline.
type regressionError struct{ regs []bench.Regression }

func (e regressionError) Error() string {
	lines := make([]string, len(e.regs))
	for i, r := range e.regs {
		lines[i] = r.String()
	}
	return fmt.Sprintf("%d regression(s) against the baseline:\n  %s", len(e.regs), strings.Join(lines, "\n  "))
}

// compareBaseline checks rep against the report stored in path.
func compareBaseline(rep bench.Report, path string, tol float64, stdout io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("-baseline: %w", err)
	}
	defer f.Close()
	base, err := bench.ReadReport(f)
	if err != nil {
		return fmt.Errorf("-baseline %s: %w", path, err)
	}
	if base.Device != rep.Device || base.Backend != rep.Backend {
		fmt.Fprintf(stdout, "\nbaseline %s was measured on %s, this run on %s: timings may not compare\n", path, base.DeviceLine(), rep.DeviceLine())
	}
	regs := bench.Compare(base, rep, tol)
	if len(regs) > 0 {
		return regressionError{regs}
	}
	fmt.Fprintf(stdout, "\nno regression against %s (tolerance %.0f%%)\n", path, 100*tol)
	return nil
}

// fmtDur formats a duration like the report does.
func fmtDur(d time.Duration) string { return profiler.FormatDuration(d) }
