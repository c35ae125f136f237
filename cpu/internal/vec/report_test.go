package vec

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	reportFlag   = flag.Bool("vec.report", false, "run the bandwidth report (slow; prints a Markdown table)")
	reportRounds = flag.Int("vec.rounds", 7, "rounds per kernel in the bandwidth report")
	reportGo     = flag.Bool("vec.reportgo", false, "include the pure-Go level in the bandwidth report")
)

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// TestBandwidthReport measures every benchmarked kernel on 10M floats at
// every level on 1 and 2 goroutines, interleaved round by round with the
// STREAM-like reference of the same traffic pattern (triad for two-input
// kernels, copy for one-input kernels, both at the best level), and prints
// medians of the throughputs and of the per-round ratios. Interleaving
// keeps the ratio meaningful on a shared, noisy machine.
func TestBandwidthReport(t *testing.T) {
	if !*reportFlag {
		t.Skip("run with -vec.report")
	}
	r := rand.New(rand.NewPCG(1, 2))
	x, y, dst := make([]float32, benchN), make([]float32, benchN), make([]float32, benchN)
	for i := range x {
		x[i] = 8*r.Float32() - 4
		y[i] = 8*r.Float32() - 4
	}
	best := tables[Detected()]
	timeIt := func(threads int, f func(lo, hi int)) float64 {
		start := time.Now()
		parallel(threads, benchN, f)
		return time.Since(start).Seconds()
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "| kernel | level | goroutines | GB/s (median) | reference | ref GB/s (median) | ratio (median) |\n|---|---|---|---|---|---|---|\n")
	for _, op := range benchOps {
		if op.name == "copy" || op.name == "triad" {
			continue
		}
		refName := "copy"
		ref := func(lo, hi int) { best.copy(dst[lo:hi], x[lo:hi]) }
		if op.bytes == 12 {
			refName = "triad"
			ref = func(lo, hi int) { best.triad(dst[lo:hi], x[lo:hi], y[lo:hi], 3) }
		}
		for _, l := range Available() {
			if l == LevelGo && !*reportGo {
				continue
			}
			for _, threads := range []int{1, 2} {
				prev := SetLevel(l)
				rounds := *reportRounds
				if l == LevelGo {
					rounds = min(rounds, 3)
				}
				var gs, rs, ratios []float64
				op.run(dst, x, y) // warm-up
				for range rounds {
					tr := timeIt(threads, ref)
					tk := timeIt(threads, func(lo, hi int) { op.run(dst[lo:hi], x[lo:hi], y[lo:hi]) })
					g := float64(op.bytes*benchN) / tk / 1e9
					rg := float64(op.bytes*benchN) / tr / 1e9
					gs, rs, ratios = append(gs, g), append(rs, rg), append(ratios, g/rg)
				}
				SetLevel(prev)
				fmt.Fprintf(&sb, "| %s | %v | %d | %.2f | %s | %.2f | %.0f%% |\n", op.name, l, threads, median(gs), refName, median(rs), 100*median(ratios))
			}
		}
	}
	for _, threads := range []int{1, 2} {
		fmt.Fprintf(&sb, "\nMeasureBandwidth(%d, 120 MB): %.2f GB/s (best of 7 triad passes)\n", threads, MeasureBandwidth(threads, 12*benchN))
	}
	t.Log("\n" + sb.String())
}
