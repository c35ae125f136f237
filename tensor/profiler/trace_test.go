package profiler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromeTrace is the part of the trace-event format the tests read back.
type chromeTrace struct {
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
	TraceEvents     []struct {
		Name string         `json:"name"`
		Cat  string         `json:"cat"`
		Ph   string         `json:"ph"`
		Ts   *float64       `json:"ts"`
		Dur  *float64       `json:"dur"`
		Pid  *int           `json:"pid"`
		Tid  *int           `json:"tid"`
		Args map[string]any `json:"args"`
	} `json:"traceEvents"`
}

type traceRow = struct {
	Name, Cat string
	Ts, Dur   float64
	Pid, Tid  int
}

// complete returns the ph "X" events, checking that each has every field.
func (c chromeTrace) complete() []traceRow {
	var out []traceRow
	for _, e := range c.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		if e.Ts == nil || e.Dur == nil || e.Pid == nil || e.Tid == nil {
			panic(fmt.Sprintf("trace event %q lacks a field", e.Name))
		}
		out = append(out, traceRow{e.Name, e.Cat, *e.Ts, *e.Dur, *e.Pid, *e.Tid})
	}
	return out
}

func decodeTrace(t *testing.T, p *Profiler) chromeTrace {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, p.WriteChromeTrace(&buf))
	require.True(t, json.Valid(buf.Bytes()), "invalid JSON:\n%s", buf.String())
	var c chromeTrace
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&c))
	return c
}

func TestChromeTraceFields(t *testing.T) {
	p := New()
	p.Record("step", "train", t0, 10*time.Millisecond)
	p.Record("matmul", "kernel", t0.Add(2*time.Millisecond), 3*time.Millisecond)
	p.Record("copy", "transfer", t0.Add(4*time.Millisecond), 1500*time.Nanosecond) // overlaps matmul's end? no: inside it
	p.Record("other", "host", t0.Add(5*time.Millisecond), 20*time.Millisecond)     // overlaps step's end
	c := decodeTrace(t, p)
	assert.Equal(t, "ms", c.DisplayTimeUnit)
	ev := c.complete()
	require.Len(t, ev, 4)
	byName := map[string]traceRow{}
	for _, e := range ev {
		byName[e.Name] = e
		assert.Equal(t, 1, e.Pid)
	}
	assert.Equal(t, traceRow{"step", "train", 0, 10000, 1, 1}, byName["step"])
	assert.Equal(t, traceRow{"matmul", "kernel", 2000, 3000, 1, 1}, byName["matmul"])
	assert.Equal(t, traceRow{"copy", "transfer", 4000, 1.5, 1, 1}, byName["copy"])
	assert.Equal(t, traceRow{"other", "host", 5000, 20000, 1, 2}, byName["other"], "a partial overlap goes to another lane")

	var meta int
	for _, e := range c.TraceEvents {
		if e.Ph == "M" {
			meta++
			assert.Equal(t, "process_name", e.Name)
		}
	}
	assert.Equal(t, 1, meta)
}

func TestChromeTraceEmpty(t *testing.T) {
	c := decodeTrace(t, New())
	assert.Empty(t, c.complete())
}

// TestChromeTraceLanesNest places random overlapping spans and checks that,
// within each lane, any two spans are either disjoint or nested, and that
// nothing was lost or altered.
func TestChromeTraceLanesNest(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	p := New()
	const n = 400
	for i := range n {
		start := time.Duration(rng.Int64N(1e6)) * time.Nanosecond * 1000
		d := time.Duration(rng.Int64N(5e7))
		if i%10 == 0 {
			d = 0
		}
		p.Record(fmt.Sprint("s", i), "k", t0.Add(start), d)
	}
	ev := decodeTrace(t, p).complete()
	require.Len(t, ev, n)
	lanes := map[int][]traceRow{}
	for _, e := range ev {
		lanes[e.Tid] = append(lanes[e.Tid], e)
	}
	for tid, es := range lanes {
		sort.Slice(es, func(i, j int) bool { return es[i].Ts < es[j].Ts })
		for i := range es {
			for j := i + 1; j < len(es); j++ {
				a, b := es[i], es[j]
				aEnd, bEnd := a.Ts+a.Dur, b.Ts+b.Dur
				disjoint := b.Ts >= aEnd-1e-6
				nested := bEnd <= aEnd+1e-6
				require.True(t, disjoint || nested, "seed %d lane %d: %+v and %+v overlap partially", seed, tid, a, b)
			}
		}
	}
	assert.Less(t, len(lanes), n/4, "seed %d: lanes are reused", seed)
}
