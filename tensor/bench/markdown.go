package bench

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shaderflow/shaderflow/tensor/profiler"
)

// WriteMarkdown writes the report as Markdown: a header naming the device,
// driver, host, date and limits, then one table row per result with its
// median, mean ± standard deviation, GB/s, GFLOP/s, the fraction of the
// machine's limit it reaches, and, where a peer figure exists, the peer's
// median and how many times faster this result is (above 1: faster than the
// peer).
func (r Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	title := r.Title
	if title == "" {
		title = "Benchmark report"
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "- device: %s\n", r.DeviceLine())
	fmt.Fprintf(&b, "- host: %s\n", r.Host)
	if !r.When.IsZero() {
		fmt.Fprintf(&b, "- when: %s\n", r.When.Format(time.RFC3339))
	}
	if len(r.Limits) > 0 {
		keys := make([]string, 0, len(r.Limits))
		for k := range r.Limits {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %s", k, strconv.FormatFloat(r.Limits[k], 'g', 4, 64))
		}
		fmt.Fprintf(&b, "- limits: %s\n", strings.Join(parts, ", "))
	}
	b.WriteString("\n")

	peer := r.PeerName
	if peer == "" {
		peer = "peer"
	}
	header := []string{"benchmark", "iters", "median", "mean ± sd", "GB/s", "GFLOP/s", "of limit"}
	if len(r.Peers) > 0 {
		header = append(header, peer+" median", "speed vs "+peer)
	}
	writeRow(&b, header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---:"
	}
	sep[0] = "---"
	writeRow(&b, sep)
	for _, res := range r.Results {
		writeRow(&b, r.markdownRow(res, len(header)))
	}
	for _, res := range r.Results {
		if res.Note != "" {
			fmt.Fprintf(&b, "\n- %s: %s", escapeCell(res.Name), escapeCell(res.Note))
		}
	}
	if slices.ContainsFunc(r.Results, func(x Result) bool { return x.Note != "" }) {
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownRow renders one result's cells.
func (r Report) markdownRow(res Result, cells int) []string {
	row := []string{
		escapeCell(res.Name),
		strconv.Itoa(res.Iterations),
		profiler.FormatDuration(res.Median),
		profiler.FormatDuration(res.Mean) + " ± " + profiler.FormatDuration(res.Stddev),
		rate(res.GBPerSec()),
		rate(res.GFLOPPerSec()),
		"–",
	}
	if frac, key, ok := r.LimitFraction(res); ok {
		row[6] = fmt.Sprintf("%.1f%% %s", 100*frac, key)
	}
	if cells > len(row) {
		if ratio, p, ok := r.PeerRatio(res); ok {
			row = append(row, profiler.FormatDuration(p.Median), fmt.Sprintf("%.2f×", ratio))
		} else {
			row = append(row, "–", "–")
		}
	}
	return row
}

// rate renders a throughput, or a dash for none.
func rate(v float64) string {
	if v <= 0 {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func writeRow(b *strings.Builder, cells []string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// escapeCell keeps a value from breaking a Markdown table row.
func escapeCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
