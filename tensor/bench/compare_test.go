package bench

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func reportOf(medians map[string]time.Duration, order ...string) Report {
	var r Report
	for _, name := range order {
		r.Results = append(r.Results, Result{Name: name, Iterations: 1, Median: medians[name]})
	}
	return r
}

func TestCompare(t *testing.T) {
	ms := time.Millisecond
	base := reportOf(map[string]time.Duration{"a": 10 * ms, "b": 10 * ms, "c": 10 * ms, "gone": ms, "zero": 0},
		"a", "b", "c", "gone", "zero")
	cur := reportOf(map[string]time.Duration{"a": 11 * ms, "b": 12 * ms, "c": 5 * ms, "new": 100 * ms, "zero": ms},
		"new", "c", "b", "a", "zero")

	regs := Compare(base, cur, 0.1)
	require.Len(t, regs, 3)
	assert.Equal(t, "b", regs[0].Name, "exactly +10%% is within tolerance; +20%% is not")
	assert.InDelta(t, 1.2, regs[0].Ratio, 1e-12)
	assert.Equal(t, 12*ms, regs[0].Current.Median)
	assert.Equal(t, 10*ms, regs[0].Base.Median)
	assert.Equal(t, "b: median 12.00ms, baseline 10.00ms (1.20× slower)", regs[0].String())
	assert.True(t, regs[1].Missing)
	assert.Equal(t, "gone: missing (baseline median 1.00ms)", regs[1].String())
	assert.Equal(t, "zero", regs[2].Name)
	assert.True(t, math.IsInf(regs[2].Ratio, 1))

	regs = Compare(base, cur, 0)
	require.Len(t, regs, 4)
	assert.Equal(t, "a", regs[0].Name)

	assert.Empty(t, Compare(base, base, 0), "a report never regresses against itself")
	assert.Panics(t, func() { Compare(base, cur, -0.1) })
	assert.Panics(t, func() { Compare(base, cur, math.NaN()) })
}
