package profiler

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type extra string

func (e extra) String() string { return string(e) }

func TestWriteSummary(t *testing.T) {
	p := New()
	p.Record("matmul", "kernel", t0, 3*time.Millisecond)
	p.Record("matmul", "kernel", t0, time.Millisecond)
	p.Record("elementwise_fused", "kernel", t0, 1500*time.Nanosecond)
	p.Record("h2d", "copy", t0, 2*time.Second)
	var buf bytes.Buffer
	require.NoError(t, p.WriteSummary(&buf, extra("memory pool: 3 allocs\n"), nil, extra("fusion: 2 kernels")))
	out := buf.String()
	t.Log("\n" + out)
	lines := strings.Split(out, "\n")
	require.GreaterOrEqual(t, len(lines), 5)
	assert.Regexp(t, `^name\s+category\s+count\s+total\s+mean\s+max\s+min$`, lines[0])
	assert.Regexp(t, `^h2d\s+copy\s+1\s+2\.000s\s+2\.000s\s+2\.000s\s+2\.000s$`, lines[1])
	assert.Regexp(t, `^matmul\s+kernel\s+2\s+4\.00ms\s+2\.00ms\s+3\.00ms\s+1\.00ms$`, lines[2])
	assert.Regexp(t, `^elementwise_fused\s+kernel\s+1\s+1\.50µs`, lines[3])
	for _, l := range lines[1:4] { // columns are aligned: equal widths
		assert.Equal(t, utf8.RuneCountInString(lines[0]), utf8.RuneCountInString(l), "line %q", l)
	}
	assert.Contains(t, lines[4], "3 kinds of span")
	assert.Contains(t, lines[4], "trace keeps 4 events, dropped 0")
	assert.Contains(t, out, "\n\nmemory pool: 3 allocs\n\nfusion: 2 kernels\n")
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrorsAreReturned(t *testing.T) {
	p := New()
	p.Record("a", "k", t0, time.Second)
	assert.EqualError(t, p.WriteSummary(failWriter{}), "disk full")
	assert.EqualError(t, p.WriteChromeTrace(failWriter{}), "disk full")
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                       "0ns",
		999:                     "999ns",
		1500:                    "1.50µs",
		12345678:                "12.35ms",
		2*time.Second + 3456789: "2.003s",
		-1500:                   "-1.50µs",
	} {
		assert.Equal(t, want, FormatDuration(d))
	}
}
