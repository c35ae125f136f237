package profiler

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// TestAggregatesAgainstReference records random durations and compares every
// aggregate with one computed in float64 by the test.
func TestAggregatesAgainstReference(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	p := New()
	type ref struct {
		n               int
		sum, maxv, minv float64
	}
	refs := map[[2]string]*ref{}
	for range 5000 {
		name := fmt.Sprintf("op%d", rng.IntN(7))
		cat := []string{"kernel", "copy", ""}[rng.IntN(3)]
		d := time.Duration(rng.Int64N(int64(50 * time.Millisecond)))
		p.Record(name, cat, t0.Add(time.Duration(rng.Int64N(int64(time.Second)))), d)
		k := [2]string{name, cat}
		r := refs[k]
		if r == nil {
			r = &ref{minv: 1e300, maxv: -1}
			refs[k] = r
		}
		r.n++
		r.sum += float64(d)
		r.maxv = max(r.maxv, float64(d))
		r.minv = min(r.minv, float64(d))
	}
	rows := p.Rows()
	require.Len(t, rows, len(refs), "seed %d", seed)
	for _, row := range rows {
		r := refs[[2]string{row.Name, row.Category}]
		require.NotNil(t, r, "seed %d: unexpected row %+v", seed, row)
		assert.Equal(t, r.n, row.Count, "seed %d %s/%s", seed, row.Name, row.Category)
		assert.Equal(t, r.sum, float64(row.Total), "seed %d %s/%s", seed, row.Name, row.Category)
		assert.InDelta(t, r.sum/float64(r.n), float64(row.Mean), 1, "seed %d %s/%s", seed, row.Name, row.Category)
		assert.Equal(t, r.maxv, float64(row.Max), "seed %d", seed)
		assert.Equal(t, r.minv, float64(row.Min), "seed %d", seed)
		got, ok := p.Lookup(row.Name, row.Category)
		assert.True(t, ok)
		assert.Equal(t, row, got)
	}
	_, ok := p.Lookup("nope", "kernel")
	assert.False(t, ok)
}

func TestRowsSortedByTotal(t *testing.T) {
	p := New()
	p.Record("b", "k", t0, 5*time.Millisecond)
	p.Record("a", "k", t0, 5*time.Millisecond) // tie with b: by name
	p.Record("c", "k", t0, 2*time.Millisecond)
	p.Record("c", "k", t0, 7*time.Millisecond)
	p.Record("d", "k", t0, time.Millisecond)
	p.Record("a", "j", t0, 5*time.Millisecond) // tie with a/k: by category
	var got []string
	for _, r := range p.Rows() {
		got = append(got, r.Name+"/"+r.Category)
	}
	assert.Equal(t, []string{"c/k", "a/j", "a/k", "b/k", "d/k"}, got)
}

func TestStartEnd(t *testing.T) {
	p := New()
	assert.True(t, p.Enabled())
	sp := p.Start("sleep", "host")
	time.Sleep(time.Millisecond)
	d := sp.End()
	assert.GreaterOrEqual(t, d, time.Millisecond)
	r, ok := p.Lookup("sleep", "host")
	require.True(t, ok)
	assert.Equal(t, 1, r.Count)
	assert.Equal(t, d, r.Total)
}

func TestDisabledRecordsNothing(t *testing.T) {
	p := New()
	p.SetEnabled(false)
	assert.False(t, p.Enabled())
	sp := p.Start("x", "y")
	assert.Equal(t, Span{}, sp)
	assert.Equal(t, time.Duration(0), sp.End())
	p.Record("x", "y", t0, time.Second)
	assert.Empty(t, p.Rows())

	// A span started while enabled is recorded when it ends.
	p.SetEnabled(true)
	sp = p.Start("x", "y")
	p.SetEnabled(false)
	sp.End()
	assert.Len(t, p.Rows(), 1)
}

func TestDisabledDoesNotAllocate(t *testing.T) {
	p := New()
	p.SetEnabled(false)
	name := fmt.Sprint("kernel", 1)
	allocs := testing.AllocsPerRun(1000, func() {
		sp := p.Start(name, "kernel")
		sp.End()
	})
	assert.Zero(t, allocs)
}

func TestRecordNegativePanics(t *testing.T) {
	p := New()
	assert.PanicsWithValue(t, "profiler: Record of x with a negative duration -1ns", func() { p.Record("x", "", t0, -1) })
}

func TestTraceLimitKeepsNewestAggregatesExact(t *testing.T) {
	p := New()
	p.SetTraceLimit(10)
	for i := range 25 {
		p.Record(fmt.Sprint("e", i), "k", t0.Add(time.Duration(i)*time.Millisecond), time.Microsecond)
	}
	assert.Equal(t, int64(15), p.Dropped())
	assert.Len(t, p.Rows(), 25)
	tr := decodeTrace(t, p)
	var names []string
	for _, e := range tr.complete() {
		names = append(names, e.Name)
	}
	assert.Equal(t, []string{"e15", "e16", "e17", "e18", "e19", "e20", "e21", "e22", "e23", "e24"}, names)
	assert.Equal(t, float64(15), tr.OtherData["dropped_events"])

	p.SetTraceLimit(4) // shrinking keeps the newest
	assert.Equal(t, int64(21), p.Dropped())
	names = names[:0]
	for _, e := range decodeTrace(t, p).complete() {
		names = append(names, e.Name)
	}
	assert.Equal(t, []string{"e21", "e22", "e23", "e24"}, names)

	p.SetTraceLimit(0)
	p.Record("late", "k", t0, time.Second)
	assert.Empty(t, decodeTrace(t, p).complete())
	assert.Len(t, p.Rows(), 26)
	assert.Panics(t, func() { p.SetTraceLimit(-1) })
}

func TestReset(t *testing.T) {
	p := New()
	p.SetTraceLimit(1)
	p.Record("a", "k", t0, time.Second)
	p.Record("a", "k", t0, time.Second)
	p.Reset()
	assert.Empty(t, p.Rows())
	assert.Zero(t, p.Dropped())
	assert.Empty(t, decodeTrace(t, p).complete())
	p.Record("a", "k", t0, time.Second)
	assert.Len(t, decodeTrace(t, p).complete(), 1, "the trace limit survives Reset")
}

func TestConcurrentRecording(t *testing.T) {
	p := New()
	p.SetTraceLimit(100)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				sp := p.Start(fmt.Sprint("g", g%2), "k")
				if i%100 == 0 {
					p.SetEnabled(true)
				}
				sp.End()
			}
		}()
	}
	wg.Wait()
	rows := p.Rows()
	require.Len(t, rows, 2)
	assert.Equal(t, 8000, rows[0].Count+rows[1].Count)
	assert.Equal(t, int64(8000-100), p.Dropped())
}

func BenchmarkSpanDisabled(b *testing.B) {
	p := New()
	p.SetEnabled(false)
	b.ReportAllocs()
	for b.Loop() {
		p.Start("matmul", "kernel").End()
	}
}

func BenchmarkSpanEnabled(b *testing.B) {
	p := New()
	b.ReportAllocs()
	for b.Loop() {
		p.Start("matmul", "kernel").End()
	}
}
