package profiler

import (
	"cmp"
	"slices"
	"time"
)

// Row is the aggregate of every span with one name and category.
type Row struct {
	Name, Category string
	Count          int
	Total          time.Duration
	Mean           time.Duration
	Max            time.Duration
	Min            time.Duration
}

// Rows returns the aggregates sorted by Total, largest first (ties by name
// and category).
func (p *Profiler) Rows() []Row {
	p.mu.Lock()
	rows := make([]Row, 0, len(p.aggs))
	for k, a := range p.aggs {
		rows = append(rows, a.row(k))
	}
	p.mu.Unlock()
	slices.SortFunc(rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(b.Total, a.Total), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Category, b.Category))
	})
	return rows
}

// Lookup returns the aggregate of name in category, if anything was recorded.
func (p *Profiler) Lookup(name, category string) (Row, bool) {
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
	return Row{
		Name: k.name, Category: k.category, Count: a.count,
		Total: a.total, Mean: a.total / time.Duration(a.count), Max: a.max, Min: a.min,
	}
}
