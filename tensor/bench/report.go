package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// The keys of Report.Limits that results are measured against by default.
const (
	LimitFLOPs     = "fma_gflops" // peak floating-point rate, GFLOP/s
	LimitBandwidth = "dram_gbps"  // main-memory bandwidth, GB/s
)

// Report is a set of results measured on one device in one run.
type Report struct {
	Title   string    `json:"title,omitempty"`
	Backend string    `json:"backend,omitempty"`
	Device  string    `json:"device"`
	Kind    string    `json:"kind,omitempty"` // the adapter kind, e.g. "software gpu (emulated on the cpu)"
	Driver  string    `json:"driver"`
	Host    string    `json:"host"`
	When    time.Time `json:"when"`
	Results []Result  `json:"results"`
	// Limits are the machine's ceilings, keyed like LimitFLOPs ("…_gflops",
	// GFLOP/s) and LimitBandwidth ("…_gbps", GB/s).
	Limits map[string]float64 `json:"limits,omitempty"`
	// Peers are another implementation's figures for the same benchmarks
	// (keyed by Result.Name), measured on the same machine in the same run.
	Peers    map[string]Result `json:"peers,omitempty"`
	PeerName string            `json:"peer_name,omitempty"` // e.g. "PyTorch 2.11"
}

// NewReport starts a report for the device described by info, on this host,
// now.
func NewReport(info device.Info) Report {
	return Report{
		Backend: info.Backend,
		Device:  info.Name,
		Kind:    info.Kind.String(),
		Driver:  info.Driver,
		Host:    Host(),
		When:    time.Now().UTC().Truncate(time.Second),
	}
}

// Host describes this machine: host name, OS and architecture, logical CPUs,
// Go version and, where /proc/cpuinfo says, the CPU model.
func Host() string {
	name, err := os.Hostname()
	if err != nil {
		name = "unknown host"
	}
	s := fmt.Sprintf("%s, %s/%s, %d CPUs, %s", name, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	if m := cpuModel(); m != "" {
		s += ", " + m
	}
	return s
}

// cpuModel returns the "model name" line of /proc/cpuinfo, if any.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// DeviceLine names the device with its backend, kind and driver on one line.
func (r Report) DeviceLine() string {
	s := r.Device
	var extra []string
	if r.Backend != "" {
		extra = append(extra, r.Backend)
	}
	if r.Kind != "" && r.Kind != r.Backend {
		extra = append(extra, r.Kind)
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	if r.Driver != "" {
		s += ", driver " + r.Driver
	}
	return s
}

// Result returns the result named name.
func (r Report) Result(name string) (Result, bool) {
	for _, x := range r.Results {
		if x.Name == name {
			return x, true
		}
	}
	return Result{}, false
}

// LimitFraction returns the fraction of the machine's limit that res reaches
// and the limit's key. With res.Limit set, that limit is used (its key must
// end in "_gflops" or "_gbps"); otherwise the larger of the fractions of
// LimitFLOPs and LimitBandwidth that apply (the roofline the benchmark is
// closest to). ok is false when no limit applies.
func (r Report) LimitFraction(res Result) (frac float64, key string, ok bool) {
	keys := []string{res.Limit}
	if res.Limit == "" {
		keys = []string{LimitFLOPs, LimitBandwidth}
	}
	for _, k := range keys {
		lim, found := r.Limits[k]
		if !found || lim <= 0 {
			continue
		}
		var rate float64
		switch {
		case strings.HasSuffix(k, "_gflops"):
			rate = res.GFLOPPerSec()
		case strings.HasSuffix(k, "_gbps"):
			rate = res.GBPerSec()
		}
		if rate > 0 && (!ok || rate/lim > frac) {
			frac, key, ok = rate/lim, k, true
		}
	}
	return frac, key, ok
}

// PeerRatio returns how many times faster this result is than its peer: the
// peer's median over this median. ok is false without a peer figure.
func (r Report) PeerRatio(res Result) (ratio float64, peer Result, ok bool) {
	peer, ok = r.Peers[res.Name]
	if !ok || peer.Median <= 0 || res.Median <= 0 {
		return 0, peer, false
	}
	return float64(peer.Median) / float64(res.Median), peer, true
}

// WriteJSON writes the report as indented JSON.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("bench: writing report: %w", err)
	}
	return nil
}

// ReadReport reads a report written by WriteJSON.
func ReadReport(rd io.Reader) (Report, error) {
	var r Report
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return Report{}, fmt.Errorf("bench: reading report: %w", err)
	}
	if dec.More() {
		return Report{}, fmt.Errorf("bench: reading report: unexpected data after the report")
	}
	for i, x := range r.Results {
		if x.Name == "" {
			return Report{}, fmt.Errorf("bench: reading report: result %d has no name", i)
		}
	}
	return r, nil
}
