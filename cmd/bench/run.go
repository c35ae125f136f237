package main

import (
	"fmt"
	"time"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/bench"
)

// settings are the iteration counts shared by both sides.
type settings struct {
	Warmup     int           `json:"warmup"`
	Iterations int           `json:"iterations"`
	MinTime    time.Duration `json:"-"`
	MaxTime    time.Duration `json:"-"`
	MinTimeNs  int64         `json:"min_time_ns"`
	MaxTimeNs  int64         `json:"max_time_ns"`
}

// newSettings returns the iteration counts for a full or quick run.
func newSettings(quick bool) settings {
	s := settings{Warmup: 3, Iterations: 15, MinTime: time.Second, MaxTime: 8 * time.Second}
	if quick {
		s = settings{Warmup: 1, Iterations: 5, MaxTime: 2 * time.Second}
	}
	s.MinTimeNs, s.MaxTimeNs = int64(s.MinTime), int64(s.MaxTime)
	return s
}

// runCase measures one benchmark through the tensor API: each iteration
// computes the result inside a scope (so its memory returns to the pool) and
// realizes it; the device is synchronized before each clock stop.
func runCase(dev *tensor.Device, c benchCase, s settings) (res bench.Result, err error) {
	run, inputs := c.build(dev)
	defer func() {
		for _, t := range inputs {
			t.Release()
		}
	}()
	// Random inputs are lazy: unrealized, they would be regenerated inside
	// every measured kernel they fuse into.
	if err := tensor.Realize(inputs...); err != nil {
		return res, fmt.Errorf("%s: creating inputs: %w", c.Name, err)
	}
	if c.unfused {
		prev := tensor.SetFusion(false)
		defer tensor.SetFusion(prev)
	}
	iter := func() error {
		var err error
		cerr := tensor.Catch(func() {
			dev.Scope(func() { err = run().Realize() })
		})
		if cerr != nil {
			return cerr
		}
		return err
	}
	opt := bench.Options{Warmup: s.Warmup, Iterations: s.Iterations, MinTime: s.MinTime, MaxTime: s.MaxTime,
		Sync: dev.Sync, Bytes: c.bytes, Flops: c.flops, Limit: c.limit}
	res, err = bench.Run(c.Name, opt, iter)
	if err != nil {
		return res, fmt.Errorf("%s: %w", c.Name, err)
	}
	return res, nil
}
