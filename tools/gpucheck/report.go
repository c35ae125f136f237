package main

import (
	"fmt"
	"io"
)

// report is what one run measured.
type report struct {
	Device     string `json:"device"`
	Date       string `json:"date"`
	Torch      string `json:"torch,omitempty"`
	TorchError string `json:"torch_error,omitempty"`
	Rows       []row  `json:"rows"`
	Graphs     string `json:"graphs,omitempty"` // what CUDA graphs did in the training step's graphs run
}

// row is one case: our median time, PyTorch's, and the work one run does.
type row struct {
	Name         string  `json:"name"`
	Seconds      float64 `json:"seconds"`
	TorchSeconds float64 `json:"torch_seconds,omitempty"`
	Bytes        float64 `json:"bytes,omitempty"`
	Flops        float64 `json:"flops,omitempty"`
	Kernels      string  `json:"kernels,omitempty"` // the kernels of a profiled run, mean device times over profiledRuns, and those runs' median time
}

// copyLimit is PyTorch's device-to-device copy bandwidth in bytes per
// second, the machine's limit for the bandwidth-bound cases (0 when
// PyTorch did not run).
func (r *report) copyLimit() float64 {
	for _, x := range r.Rows {
		if x.Name == "copy f32 64M" && x.TorchSeconds > 0 {
			return x.Bytes / x.TorchSeconds
		}
	}
	return 0
}

// writeMarkdown writes the report as a Markdown table.
func (r *report) writeMarkdown(w io.Writer) {
	fmt.Fprintf(w, "# gpucheck\n\nDevice: %s  \nDate: %s  \n", r.Device, r.Date)
	switch {
	case r.Torch != "":
		fmt.Fprintf(w, "Peer: %s (same machine, same run)\n\n", r.Torch)
	case r.TorchError != "":
		fmt.Fprintf(w, "Peer: PyTorch did not run: %s\n\n", r.TorchError)
	default:
		fmt.Fprint(w, "Peer: none\n\n")
	}
	lim := r.copyLimit()
	fmt.Fprintln(w, "Each time is the median of timed runs of one operation plus a wait for its result, after warm-up.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| case | Shaderflow | rate | of copy limit | PyTorch | PyTorch / Shaderflow time |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
	for _, x := range r.Rows {
		rate, ofLimit, torch, ratio := "", "", "", ""
		switch {
		case x.Flops > 0:
			rate = fmt.Sprintf("%.1f TFLOP/s", x.Flops/x.Seconds/1e12)
		case x.Bytes > 1e6:
			rate = fmt.Sprintf("%.0f GB/s", x.Bytes/x.Seconds/1e9)
			if lim > 0 {
				ofLimit = fmt.Sprintf("%.0f%%", 100*x.Bytes/x.Seconds/lim)
			}
		}
		if x.TorchSeconds > 0 {
			torch = fmt.Sprintf("%.1f us", x.TorchSeconds*1e6)
			ratio = fmt.Sprintf("%.2f", x.TorchSeconds/x.Seconds)
		}
		fmt.Fprintf(w, "| %s | %.1f us | %s | %s | %s | %s |\n", x.Name, x.Seconds*1e6, rate, ofLimit, torch, ratio)
	}
	if lim > 0 {
		fmt.Fprintf(w, "\nCopy limit: PyTorch's clone of 64M float32, %.0f GB/s counting bytes read and written.\n", lim/1e9)
	}
	fmt.Fprintf(w, "\nKernels of a profiled run of each case (mean device time of %d runs by CUDA events; the runs' median time end to end):\n", profiledRuns)
	fmt.Fprintln(w)
	for _, x := range r.Rows {
		if x.Kernels != "" {
			fmt.Fprintf(w, "- %s: %s\n", x.Name, x.Kernels)
		}
	}
	if r.Graphs != "" {
		fmt.Fprintf(w, "\nTraining step with CUDA graphs: %s.\n", r.Graphs)
	}
}
