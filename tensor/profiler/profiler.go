package profiler

import (
	"sync"
	"sync/atomic"
	"time"
)

// DefaultTraceLimit is the number of individual events a new Profiler keeps
// for its trace; older events are dropped while aggregates stay exact.
const DefaultTraceLimit = 100_000

// key identifies an aggregate.
type key struct{ name, category string }

// stat accumulates durations.
type stat struct {
	count           int
	total, max, min time.Duration
}

// add counts one duration.
func (s *stat) add(d time.Duration) {
	if s.count == 0 {
		s.min, s.max = d, d
	}
	s.count++
	s.total += d
	s.max = max(s.max, d)
	s.min = min(s.min, d)
}

// aggregate accumulates the spans of one key: the host's and the device's.
type aggregate struct {
	host, device stat
}

// event is one recorded span kept for the trace.
type event struct {
	key
	start  time.Time
	dur    time.Duration
	device bool // measured on the device (RecordDevice)
}

// Profiler collects spans. The zero value is not usable; call New.
type Profiler struct {
	enabled atomic.Bool

	mu      sync.Mutex
	aggs    map[key]*aggregate
	events  []event // a ring once full: next is the oldest
	next    int
	limit   int
	dropped int64

	collectMu  sync.Mutex // serializes collectors; taken before mu
	collectors []func()
}

// New returns an enabled profiler that keeps DefaultTraceLimit events.
func New() *Profiler {
	p := &Profiler{aggs: make(map[key]*aggregate), limit: DefaultTraceLimit}
	p.enabled.Store(true)
	return p
}

// SetEnabled turns recording on or off. Spans started while enabled are
// recorded when they end even if the profiler was disabled in between.
func (p *Profiler) SetEnabled(on bool) { p.enabled.Store(on) }

// Enabled reports whether the profiler records.
func (p *Profiler) Enabled() bool { return p.enabled.Load() }

// Span is a scope being timed; End records it. The zero Span, which Start
// returns while the profiler is disabled, records nothing.
type Span struct {
	p              *Profiler
	name, category string
	start          time.Time
}

// Start begins timing a span named name in category. It allocates nothing.
func (p *Profiler) Start(name, category string) Span {
	if !p.enabled.Load() {
		return Span{}
	}
	return Span{p: p, name: name, category: category, start: time.Now()}
}

// End records the span and returns its duration (zero for a span started
// while the profiler was disabled).
func (s Span) End() time.Duration {
	if s.p == nil {
		return 0
	}
	return s.end()
}

// end records an enabled span; kept apart so that End inlines.
func (s Span) end() time.Duration {
	d := time.Since(s.start)
	s.p.record(key{s.name, s.category}, s.start, d)
	return d
}

// Record adds a span measured elsewhere (a device timestamp, say) that began
// at start and lasted d. It does nothing while the profiler is disabled.
// Record panics if d is negative.
func (p *Profiler) Record(name, category string, start time.Time, d time.Duration) {
	if d < 0 {
		panic("profiler: Record of " + name + " with a negative duration " + d.String())
	}
	if !p.enabled.Load() {
		return
	}
	p.record(key{name, category}, start, d)
}

// RecordDevice adds a kernel's execution measured on the device (with GPU
// timestamps, say), which began at start on the host's clock and lasted d.
// Device time is aggregated apart from host time under the same name and
// category (Row.Device*) and drawn on its own track in the trace. It does
// nothing while the profiler is disabled and panics if d is negative.
func (p *Profiler) RecordDevice(name, category string, start time.Time, d time.Duration) {
	if d < 0 {
		panic("profiler: RecordDevice of " + name + " with a negative duration " + d.String())
	}
	if !p.enabled.Load() {
		return
	}
	p.add(event{key{name, category}, start, d, true})
}

func (p *Profiler) record(k key, start time.Time, d time.Duration) {
	p.add(event{k, start, d, false})
}

// add aggregates an event and keeps it for the trace.
func (p *Profiler) add(e event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a := p.aggs[e.key]
	if a == nil {
		a = &aggregate{}
		p.aggs[e.key] = a
	}
	if e.device {
		a.device.add(e.dur)
	} else {
		a.host.add(e.dur)
	}

	switch {
	case p.limit == 0:
		p.dropped++
	case len(p.events) < p.limit:
		p.events = append(p.events, e)
	default:
		p.events[p.next] = e
		p.next = (p.next + 1) % p.limit
		p.dropped++
	}
}

// AddCollector registers f to be called before the profiler reports (Rows,
// Lookup, WriteSummary, WriteChromeTrace), so that a source measured
// asynchronously, such as a device's kernel timestamps, can deliver what it
// has with RecordDevice. f is called without the profiler's locks held,
// never concurrently with another collector.
func (p *Profiler) AddCollector(f func()) {
	p.collectMu.Lock()
	defer p.collectMu.Unlock()
	p.collectors = append(p.collectors, f)
}

// collect runs the collectors.
func (p *Profiler) collect() {
	p.collectMu.Lock()
	defer p.collectMu.Unlock()
	for _, f := range p.collectors {
		f()
	}
}

// SetTraceLimit sets how many of the most recent events are kept for the
// trace (zero keeps none), dropping the oldest kept events if needed.
// Aggregates are not affected. It panics if n is negative.
func (p *Profiler) SetTraceLimit(n int) {
	if n < 0 {
		panic("profiler: SetTraceLimit with a negative limit")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ev := p.orderedEvents()
	if len(ev) > n {
		p.dropped += int64(len(ev) - n)
		ev = ev[len(ev)-n:]
	}
	p.events = append(make([]event, 0, min(n, 1024)), ev...)
	p.next = 0
	p.limit = n
}

// Dropped returns the number of events recorded but no longer kept for the
// trace.
func (p *Profiler) Dropped() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dropped
}

// Reset forgets every aggregate and event.
func (p *Profiler) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.aggs = make(map[key]*aggregate)
	p.events = nil
	p.next = 0
	p.dropped = 0
}

// orderedEvents returns the kept events oldest first, in a new slice. p.mu
// is held.
func (p *Profiler) orderedEvents() []event {
	out := make([]event, 0, len(p.events))
	out = append(out, p.events[p.next:]...)
	return append(out, p.events[:p.next]...)
}
