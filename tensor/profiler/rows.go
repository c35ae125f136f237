package profiler

import (
	"cmp"
	"slices"
	"time"
)

// Row is the aggregate of every span with one name and category: the host's
// spans, and the device's measurements of the same kernels (RecordDevice).
type Row struct {
	Name, Category string
	Count          int
	Total          time.Duration
	Mean           time.Duration
	Max            time.Duration
	Min            time.Duration

	DeviceCount int // device measurements; the Device fields are zero without any
	DeviceTotal time.Duration
	DeviceMean  time.Duration
	DeviceMax   time.Duration
	DeviceMin   time.Duration
}

// Rows returns the aggregates sorted by Total, largest first (ties by
// device total, name and category).
func (p *Profiler) Rows() []Row {
	p.collect()
	p.mu.Lock()
	rows := make([]Row, 0, len(p.aggs))
	for k, a := range p.aggs {
		rows = append(rows, a.row(k))
	}
	p.mu.Unlock()
	slices.SortFunc(rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(b.Total, a.Total), cmp.Compare(b.DeviceTotal, a.DeviceTotal),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.Category, b.Category))
	})
	return rows
}

// Lookup returns the aggregate of name in category, if anything was recorded.
func (p *Profiler) Lookup(name, category string) (Row, bool) {
	p.collect()
	p.mu.Lock()
	defer p.mu.Unlock()
	k := key{name, category}
	a, ok := p.aggs[k]
	if !ok {
		return Row{}, false
	}
	return a.row(k), true
}

func (a *aggregate) row(k key) Row {
	r := Row{Name: k.name, Category: k.category,
		Count: a.host.count, Total: a.host.total, Max: a.host.max, Min: a.host.min,
		DeviceCount: a.device.count, DeviceTotal: a.device.total, DeviceMax: a.device.max, DeviceMin: a.device.min,
	}
	if r.Count > 0 {
		r.Mean = r.Total / time.Duration(r.Count)
	}
	if r.DeviceCount > 0 {
		r.DeviceMean = r.DeviceTotal / time.Duration(r.DeviceCount)
	}
	return r
}
