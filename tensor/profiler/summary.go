package profiler

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// WriteSummary writes the aggregates as an aligned table (name, category,
// count, total, mean, max, min; largest total first), with the device's
// count, total and mean of the same kernels in three more columns when any
// were recorded (RecordDevice), a line on how many events the trace kept,
// and then each extra's String, separated by blank lines.
func (p *Profiler) WriteSummary(w io.Writer, extras ...fmt.Stringer) error {
	rows := p.Rows()
	withDevice := slices.ContainsFunc(rows, func(r Row) bool { return r.DeviceCount > 0 })
	header := []string{"name", "category", "count", "total", "mean", "max", "min"}
	if withDevice {
		header = append(header, "dev count", "dev total", "dev mean")
	}
	table := [][]string{header}
	var sum, devSum time.Duration
	for _, r := range rows {
		line := []string{r.Name, r.Category, strconv.Itoa(r.Count), "-", "-", "-", "-"}
		if r.Count > 0 {
			line = append(line[:3], FormatDuration(r.Total), FormatDuration(r.Mean), FormatDuration(r.Max), FormatDuration(r.Min))
		}
		switch {
		case r.DeviceCount > 0:
			line = append(line, strconv.Itoa(r.DeviceCount), FormatDuration(r.DeviceTotal), FormatDuration(r.DeviceMean))
		case withDevice:
			line = append(line, "-", "-", "-")
		}
		table = append(table, line)
		sum += r.Total
		devSum += r.DeviceTotal
	}
	var b strings.Builder
	writeTable(&b, table, 2) // name and category left-aligned, figures right-aligned
	p.mu.Lock()
	kept, dropped := len(p.events), p.dropped
	p.mu.Unlock()
	fmt.Fprintf(&b, "%d kinds of span, %s in all (nested spans count twice)", len(rows), FormatDuration(sum))
	if withDevice {
		fmt.Fprintf(&b, ", %s of device time", FormatDuration(devSum))
	}
	fmt.Fprintf(&b, "; trace keeps %d events, dropped %d\n", kept, dropped)
	for _, x := range extras {
		if x == nil {
			continue
		}
		s := x.String()
		b.WriteString("\n" + s)
		if !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable writes rows with columns padded to a common width, separated by
// two spaces; the first left columns are left-aligned, the rest right-aligned.
func writeTable(b *strings.Builder, rows [][]string, left int) {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				line.WriteString("  ")
			}
			if i < left {
				line.WriteString(c + pad)
			} else {
				line.WriteString(pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// FormatDuration renders d with a unit chosen by its size and a fixed number
// of decimals, so that columns of durations line up: "850ns", "12.34µs",
// "1.50ms", "2.345s".
func FormatDuration(d time.Duration) string {
	a := d
	if a < 0 {
		a = -a
	}
	switch {
	case a < time.Microsecond:
		return strconv.FormatInt(int64(d), 10) + "ns"
	case a < time.Millisecond:
		return strconv.FormatFloat(float64(d)/1e3, 'f', 2, 64) + "µs"
	case a < time.Second:
		return strconv.FormatFloat(float64(d)/1e6, 'f', 2, 64) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) + "s"
}
