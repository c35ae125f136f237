package profiler

import (
	"bufio"
	"cmp"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"time"
)

// traceEvent is one entry of Chrome's trace-event format: a complete event
// (ph "X") or a metadata event (ph "M").
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`  // microseconds
	Dur  float64        `json:"dur"` // microseconds
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// tracePid is the process id written to the trace.
const tracePid = 1

// DeviceLane is the first thread lane (tid) of device measurements in the
// trace; host spans use lanes 1, 2, ...
const DeviceLane = 1001

// WriteChromeTrace writes the kept events as Chrome trace-event JSON (the
// object form, {"traceEvents": [...]}) with complete events (ph "X") whose
// ts and dur are microseconds from the earliest kept event. Events are placed
// on as few thread lanes (tid) as keeps every lane properly nested, since the
// trace viewers require that and spans from concurrent goroutines overlap.
// Device measurements (RecordDevice) get lanes of their own, numbered from
// DeviceLane and named "device" by thread_name metadata events.
func (p *Profiler) WriteChromeTrace(w io.Writer) error {
	p.collect()
	p.mu.Lock()
	events := p.orderedEvents()
	dropped := p.dropped
	p.mu.Unlock()

	slices.SortStableFunc(events, func(a, b event) int {
		return cmp.Or(a.start.Compare(b.start), cmp.Compare(b.dur, a.dur)) // parents before children
	})
	lanes := assignLanes(events)
	deviceLanes := 0
	for i, e := range events {
		if e.device {
			deviceLanes = max(deviceLanes, lanes[i])
			lanes[i] += DeviceLane - 1
		}
	}

	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if _, err := bw.WriteString(`{"displayTimeUnit":"ms","otherData":{"dropped_events":` + strconv.FormatInt(dropped, 10) + `},"traceEvents":[` + "\n"); err != nil {
		return err
	}
	meta := traceEvent{Name: "process_name", Ph: "M", Pid: tracePid, Args: map[string]any{"name": "shaderflow"}}
	if err := enc.Encode(meta); err != nil {
		return err
	}
	for l := range deviceLanes {
		bw.WriteByte(',')
		name := traceEvent{Name: "thread_name", Ph: "M", Pid: tracePid, Tid: DeviceLane + l, Args: map[string]any{"name": "device"}}
		if err := enc.Encode(name); err != nil {
			return err
		}
	}
	var origin time.Time
	if len(events) > 0 {
		origin = events[0].start
	}
	for i, e := range events {
		bw.WriteByte(',')
		te := traceEvent{
			Name: e.name, Cat: e.category, Ph: "X",
			Ts: micros(e.start.Sub(origin)), Dur: micros(e.dur),
			Pid: tracePid, Tid: lanes[i],
		}
		if err := enc.Encode(te); err != nil {
			return err
		}
	}
	if _, err := bw.WriteString("]}\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// assignLanes gives each event (sorted by start, parents first) the lowest
// lane in which it either follows the lane's open spans or nests inside the
// innermost one. Lanes are numbered from 1, for host and device events
// separately.
func assignLanes(events []event) []int {
	out := make([]int, len(events))
	var host, device [][]time.Time // per lane, the end times of the open spans, outermost first
	for i, e := range events {
		if e.device {
			out[i] = placeInLane(&device, e)
		} else {
			out[i] = placeInLane(&host, e)
		}
	}
	return out
}

// placeInLane puts e in the lowest fitting lane of open and returns it.
func placeInLane(lanes *[][]time.Time, e event) int {
	open := *lanes
	end := e.start.Add(e.dur)
	lane := -1
	for l := range open {
		st := open[l]
		for len(st) > 0 && !st[len(st)-1].After(e.start) {
			st = st[:len(st)-1]
		}
		open[l] = st
		if len(st) == 0 || !end.After(st[len(st)-1]) {
			lane = l
			break
		}
	}
	if lane < 0 {
		lane = len(open)
		open = append(open, nil)
	}
	open[lane] = append(open[lane], end)
	*lanes = open
	return lane + 1
}

func micros(d time.Duration) float64 { return float64(d) / 1e3 }
