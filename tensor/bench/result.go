package bench

import (
	"math"
	"slices"
	"time"
)

// Result is the outcome of one benchmark.
type Result struct {
	Name       string        `json:"name"`
	Iterations int           `json:"iterations"`
	Mean       time.Duration `json:"mean_ns"`
	Median     time.Duration `json:"median_ns"`
	Min        time.Duration `json:"min_ns"`
	Max        time.Duration `json:"max_ns"`
	Stddev     time.Duration `json:"stddev_ns"` // sample standard deviation; zero for one iteration
	Total      time.Duration `json:"total_ns"`  // the sum of the measured iterations
	Bytes      float64       `json:"bytes,omitempty"`
	Flops      float64       `json:"flops,omitempty"`
	Limit      string        `json:"limit,omitempty"` // see Options.Limit
	Note       string        `json:"note,omitempty"`  // anything a reader must know, e.g. a fallback path

	// Samples are the measured iterations in order; they are not stored in
	// JSON reports.
	Samples []time.Duration `json:"-"`
}

// FromSamples computes a Result's statistics from measured iterations (at
// least one); the samples are kept, not copied.
func FromSamples(name string, samples []time.Duration) Result {
	if len(samples) == 0 {
		panic("bench: FromSamples(" + name + ") with no samples")
	}
	n := len(samples)
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	r := Result{Name: name, Iterations: n, Min: sorted[0], Max: sorted[n-1], Samples: samples}
	if n%2 == 1 {
		r.Median = sorted[n/2]
	} else {
		r.Median = sorted[n/2-1] + (sorted[n/2]-sorted[n/2-1])/2
	}
	var sum float64
	for _, s := range samples {
		r.Total += s
		sum += float64(s)
	}
	mean := sum / float64(n)
	r.Mean = time.Duration(math.Round(mean))
	if n > 1 {
		var ss float64
		for _, s := range samples {
			d := float64(s) - mean
			ss += d * d
		}
		r.Stddev = time.Duration(math.Round(math.Sqrt(ss / float64(n-1))))
	}
	return r
}

// GBPerSec returns the throughput in 10^9 bytes per second at the median
// time; zero without Bytes or a positive median.
func (r Result) GBPerSec() float64 { return perSecond(r.Bytes, r.Median) / 1e9 }

// GFLOPPerSec returns the arithmetic rate in 10^9 floating-point operations
// per second at the median time; zero without Flops or a positive median.
func (r Result) GFLOPPerSec() float64 { return perSecond(r.Flops, r.Median) / 1e9 }

func perSecond(amount float64, d time.Duration) float64 {
	if amount <= 0 || d <= 0 {
		return 0
	}
	return amount / d.Seconds()
}
