package bench

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is a clock that only moves when told to.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestRunFakeClockWarmupExcludedSyncTimed(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	durations := []time.Duration{
		time.Hour, time.Hour, // warm-up: must not show up
		5 * time.Millisecond, 1 * time.Millisecond, 3 * time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond,
	}
	calls, syncs := 0, 0
	fn := func() error {
		clk.advance(durations[calls])
		calls++
		return nil
	}
	sync := func() error {
		syncs++
		clk.advance(100 * time.Microsecond) // the device finishing its work
		return nil
	}
	r, err := Run("op", Options{Warmup: 2, Iterations: 5, Sync: sync, Clock: clk.now, Bytes: 2e6, Flops: 4e6}, fn)
	require.NoError(t, err)
	assert.Equal(t, 7, calls)
	assert.Equal(t, 6, syncs, "once after the warm-up, once per measured iteration")
	ms := func(x float64) time.Duration { return time.Duration(math.Round(x * 1e6)) }
	assert.Equal(t, []time.Duration{ms(5.1), ms(1.1), ms(3.1), ms(2.1), ms(4.1)}, r.Samples)
	assert.Equal(t, "op", r.Name)
	assert.Equal(t, 5, r.Iterations)
	assert.Equal(t, ms(3.1), r.Median)
	assert.Equal(t, ms(3.1), r.Mean)
	assert.Equal(t, ms(1.1), r.Min)
	assert.Equal(t, ms(5.1), r.Max)
	assert.Equal(t, ms(15.5), r.Total)
	assert.Equal(t, time.Duration(math.Round(math.Sqrt(2.5)*1e6)), r.Stddev) // sd of 1..5 ms
	assert.InDelta(t, 2e6/3.1e-3/1e9, r.GBPerSec(), 1e-12)
	assert.InDelta(t, 4e6/3.1e-3/1e9, r.GFLOPPerSec(), 1e-12)
}

func TestRunMinAndMaxTime(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	step := func() error { clk.advance(10 * time.Millisecond); return nil }

	r, err := Run("min", Options{Iterations: 2, MinTime: 95 * time.Millisecond, Clock: clk.now}, step)
	require.NoError(t, err)
	assert.Equal(t, 10, r.Iterations, "runs until 100ms >= 95ms")

	r, err = Run("many", Options{Iterations: 20, Clock: clk.now}, step)
	require.NoError(t, err)
	assert.Equal(t, 20, r.Iterations, "Iterations dominates a shorter MinTime")

	r, err = Run("cap", Options{Iterations: 1000, MaxTime: 35 * time.Millisecond, Clock: clk.now}, step)
	require.NoError(t, err)
	assert.Equal(t, 4, r.Iterations, "stops once 40ms >= 35ms")

	r, err = Run("one", Options{Iterations: 5, MaxTime: time.Nanosecond, Clock: clk.now}, step)
	require.NoError(t, err)
	assert.Equal(t, 1, r.Iterations, "always one measured iteration")

	r, err = Run("default", Options{Clock: clk.now}, step)
	require.NoError(t, err)
	assert.Equal(t, DefaultIterations, r.Iterations)
}

func TestRunErrorsAbort(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	_, err := Run("w", Options{Warmup: 3}, func() error {
		calls++
		if calls == 2 {
			return boom
		}
		return nil
	})
	assert.ErrorIs(t, err, boom)
	assert.EqualError(t, err, "bench w: warm-up iteration 1: boom")
	assert.Equal(t, 2, calls)

	calls = 0
	_, err = Run("m", Options{Iterations: 10}, func() error {
		calls++
		if calls == 4 {
			return boom
		}
		return nil
	})
	assert.EqualError(t, err, "bench m: iteration 3: boom")
	assert.Equal(t, 4, calls)

	syncs := 0
	r, err := Run("s", Options{Iterations: 10, Sync: func() error {
		syncs++
		if syncs == 3 {
			return boom
		}
		return nil
	}}, func() error { return nil })
	assert.EqualError(t, err, "bench s: iteration 1: boom", "the first Sync comes before measuring")
	assert.Equal(t, "s", r.Name)

	_, err = Run("s0", Options{Warmup: 1, Sync: func() error { return boom }}, func() error { return nil })
	assert.EqualError(t, err, "bench s0: sync after warm-up: boom")
}

func TestRunPanicsOnMisuse(t *testing.T) {
	assert.PanicsWithValue(t, "bench: Run(x) with a nil function", func() { _, _ = Run("x", Options{}, nil) })
	assert.Panics(t, func() { _, _ = Run("x", Options{Iterations: -1}, func() error { return nil }) })
	assert.Panics(t, func() { FromSamples("x", nil) })
}

// TestRunRealClock times a function that sleeps: the measured median cannot
// be below the sleep.
func TestRunRealClock(t *testing.T) {
	r, err := Run("sleep", Options{Warmup: 1, Iterations: 3}, func() error {
		time.Sleep(2 * time.Millisecond)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 3, r.Iterations)
	assert.GreaterOrEqual(t, r.Min, 2*time.Millisecond)
	assert.LessOrEqual(t, r.Min, r.Median)
	assert.LessOrEqual(t, r.Median, r.Max)
}

// TestFromSamplesAgainstFloat64 compares the statistics of random samples,
// odd and even counts, with a float64 reference.
func TestFromSamplesAgainstFloat64(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 5))
	for _, n := range []int{1, 2, 3, 10, 101, 1000} {
		samples := make([]time.Duration, n)
		xs := make([]float64, n)
		for i := range samples {
			samples[i] = time.Duration(rng.Int64N(1e9))
			xs[i] = float64(samples[i])
		}
		orig := slices.Clone(samples)
		r := FromSamples("x", samples)
		assert.Equal(t, orig, samples, "the samples are not reordered")
		sort.Float64s(xs)
		var sum float64
		for _, x := range xs {
			sum += x
		}
		mean := sum / float64(n)
		median := xs[n/2]
		if n%2 == 0 {
			median = (xs[n/2-1] + xs[n/2]) / 2
		}
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		sd := 0.0
		if n > 1 {
			sd = math.Sqrt(ss / float64(n-1))
		}
		assert.Equal(t, n, r.Iterations)
		assert.InDelta(t, mean, float64(r.Mean), 1, "seed %d n %d", seed, n)
		assert.InDelta(t, median, float64(r.Median), 1, "seed %d n %d", seed, n)
		assert.InDelta(t, sd, float64(r.Stddev), 1, "seed %d n %d", seed, n)
		assert.Equal(t, xs[0], float64(r.Min))
		assert.Equal(t, xs[n-1], float64(r.Max))
		assert.Equal(t, sum, float64(r.Total))
	}
}

func TestRatesWithoutWorkOrTime(t *testing.T) {
	assert.Zero(t, Result{Median: time.Second}.GBPerSec())
	assert.Zero(t, Result{Bytes: 1e9}.GBPerSec())
	assert.Zero(t, Result{Flops: 1e9}.GFLOPPerSec())
	assert.Equal(t, 1.0, Result{Bytes: 1e9, Median: time.Second}.GBPerSec())
}
