package bench

import (
	"fmt"
	"time"
)

// DefaultIterations is the number of measured iterations when Options gives
// neither Iterations nor MinTime.
const DefaultIterations = 10

// Options control a Run.
type Options struct {
	Warmup     int           // iterations run first and not measured
	Iterations int           // measure at least this many iterations
	MinTime    time.Duration // and keep measuring until the measured time reaches this
	MaxTime    time.Duration // but stop once the measured time reaches this (zero: no cap); at least one iteration is always measured
	// Sync, if set, waits for the device to finish: it is called once before
	// measuring (after any warm-up) and inside every measured iteration,
	// before the clock stops.
	Sync  func() error
	Bytes float64 // bytes moved per iteration, for GB/s
	Flops float64 // floating-point operations per iteration, for GFLOP/s
	// Limit names the entry of Report.Limits this benchmark is measured
	// against; empty means the tighter of LimitFLOPs and LimitBandwidth.
	Limit string
	// Clock reads the time; nil means time.Now. Tests inject a fake clock.
	Clock func() time.Time
}

// Run measures fn under opt and returns the statistics of the measured
// iterations. An error from fn or from Sync aborts the run and is returned,
// wrapped with the benchmark's name and the iteration. Run panics on a nil fn
// or a negative option.
func Run(name string, opt Options, fn func() error) (Result, error) {
	if fn == nil {
		panic("bench: Run(" + name + ") with a nil function")
	}
	if opt.Warmup < 0 || opt.Iterations < 0 || opt.MinTime < 0 || opt.MaxTime < 0 {
		panic(fmt.Sprintf("bench: Run(%s) with a negative option: warmup %d, iterations %d, min time %v, max time %v",
			name, opt.Warmup, opt.Iterations, opt.MinTime, opt.MaxTime))
	}
	clock := opt.Clock
	if clock == nil {
		clock = time.Now
	}
	iters := opt.Iterations
	if iters == 0 && opt.MinTime == 0 {
		iters = DefaultIterations
	}

	for i := range opt.Warmup {
		if err := fn(); err != nil {
			return Result{Name: name}, fmt.Errorf("bench %s: warm-up iteration %d: %w", name, i, err)
		}
	}
	if opt.Sync != nil {
		if err := opt.Sync(); err != nil {
			return Result{Name: name}, fmt.Errorf("bench %s: sync after warm-up: %w", name, err)
		}
	}

	var samples []time.Duration
	var measured time.Duration
	for {
		start := clock()
		err := fn()
		if err == nil && opt.Sync != nil {
			err = opt.Sync()
		}
		d := clock().Sub(start)
		if err != nil {
			return Result{Name: name}, fmt.Errorf("bench %s: iteration %d: %w", name, len(samples), err)
		}
		samples = append(samples, d)
		measured += d
		if len(samples) >= iters && measured >= opt.MinTime {
			break
		}
		if opt.MaxTime > 0 && measured >= opt.MaxTime {
			break
		}
	}
	r := FromSamples(name, samples)
	r.Bytes, r.Flops, r.Limit = opt.Bytes, opt.Flops, opt.Limit
	return r, nil
}
