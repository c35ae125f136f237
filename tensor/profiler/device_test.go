package profiler

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRecordDeviceAggregatesApart(t *testing.T) {
	p := New()
	p.Record("matmul", "kernel", t0, 5*time.Microsecond)
	p.RecordDevice("matmul", "kernel", t0.Add(time.Microsecond), 300*time.Microsecond)
	p.RecordDevice("matmul", "kernel", t0.Add(time.Millisecond), 100*time.Microsecond)
	p.RecordDevice("raw", "kernel", t0, time.Microsecond) // device time without a host span
	r, ok := p.Lookup("matmul", "kernel")
	require.True(t, ok)
	assert.Equal(t, Row{Name: "matmul", Category: "kernel", Count: 1, Total: 5 * time.Microsecond,
		Mean: 5 * time.Microsecond, Max: 5 * time.Microsecond, Min: 5 * time.Microsecond,
		DeviceCount: 2, DeviceTotal: 400 * time.Microsecond, DeviceMean: 200 * time.Microsecond,
		DeviceMax: 300 * time.Microsecond, DeviceMin: 100 * time.Microsecond}, r)
	r, ok = p.Lookup("raw", "kernel")
	require.True(t, ok)
	assert.Equal(t, 0, r.Count)
	assert.Zero(t, r.Mean)
	assert.Equal(t, 1, r.DeviceCount)

	p.SetEnabled(false)
	p.RecordDevice("matmul", "kernel", t0, time.Second)
	r, _ = p.Lookup("matmul", "kernel")
	assert.Equal(t, 2, r.DeviceCount, "nothing is recorded while disabled")
	assert.Panics(t, func() { p.RecordDevice("x", "kernel", t0, -1) })
}

func TestSummaryDeviceColumns(t *testing.T) {
	p := New()
	p.Record("matmul", "kernel", t0, 2*time.Millisecond)
	p.RecordDevice("matmul", "kernel", t0, 3*time.Millisecond)
	p.RecordDevice("matmul", "kernel", t0, 1*time.Millisecond)
	p.Record("h2d", "copy", t0, time.Millisecond)
	p.RecordDevice("raw", "kernel", t0, 1500*time.Nanosecond)
	var buf bytes.Buffer
	require.NoError(t, p.WriteSummary(&buf))
	out := buf.String()
	t.Log("\n" + out)
	lines := strings.Split(out, "\n")
	require.GreaterOrEqual(t, len(lines), 5)
	assert.Regexp(t, `^name\s+category\s+count\s+total\s+mean\s+max\s+min\s+dev count\s+dev total\s+dev mean$`, lines[0])
	assert.Regexp(t, `^matmul\s+kernel\s+1\s+2\.00ms\s+2\.00ms\s+2\.00ms\s+2\.00ms\s+2\s+4\.00ms\s+2\.00ms$`, lines[1])
	assert.Regexp(t, `^h2d\s+copy\s+1\s+1\.00ms\s+1\.00ms\s+1\.00ms\s+1\.00ms\s+-\s+-\s+-$`, lines[2])
	assert.Regexp(t, `^raw\s+kernel\s+0\s+-\s+-\s+-\s+-\s+1\s+1\.50µs\s+1\.50µs$`, lines[3])
	for _, l := range lines[1:4] {
		assert.Equal(t, utf8.RuneCountInString(lines[0]), utf8.RuneCountInString(l), "line %q", l)
	}
	assert.Contains(t, lines[4], "3 kinds of span, 3.00ms in all (nested spans count twice), 4.00ms of device time;")
}

func TestChromeTraceDeviceLanes(t *testing.T) {
	p := New()
	p.Record("matmul", "kernel", t0, 2*time.Microsecond)
	p.Record("add", "kernel", t0.Add(3*time.Microsecond), 2*time.Microsecond)
	p.RecordDevice("matmul", "kernel", t0.Add(10*time.Microsecond), 50*time.Microsecond)
	p.RecordDevice("add", "kernel", t0.Add(40*time.Microsecond), 30*time.Microsecond) // overlaps: a second lane
	c := decodeTrace(t, p)
	var names []int
	for _, e := range c.TraceEvents {
		if e.Ph == "M" && e.Name == "thread_name" {
			assert.Equal(t, "device", e.Args["name"])
			names = append(names, *e.Tid)
		}
	}
	assert.Equal(t, []int{DeviceLane, DeviceLane + 1}, names)
	got := map[string][]traceRow{}
	for _, e := range c.complete() {
		got[e.Name] = append(got[e.Name], e)
	}
	assert.Equal(t, []traceRow{{"matmul", "kernel", 0, 2, 1, 1}, {"matmul", "kernel", 10, 50, 1, DeviceLane}}, got["matmul"])
	assert.Equal(t, []traceRow{{"add", "kernel", 3, 2, 1, 1}, {"add", "kernel", 40, 30, 1, DeviceLane + 1}}, got["add"])
}

func TestCollectorsRunBeforeReports(t *testing.T) {
	p := New()
	calls := 0
	p.AddCollector(func() {
		calls++
		p.RecordDevice("k", "kernel", t0, time.Microsecond)
	})
	_, ok := p.Lookup("k", "kernel")
	assert.True(t, ok)
	assert.Len(t, p.Rows(), 1)
	require.NoError(t, p.WriteSummary(&bytes.Buffer{}))
	require.NoError(t, p.WriteChromeTrace(&bytes.Buffer{}))
	assert.Equal(t, 4, calls)
	r, _ := p.Lookup("k", "kernel")
	assert.Equal(t, 5, r.DeviceCount)
}
