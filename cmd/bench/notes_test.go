package main

import (
	"bytes"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/bench"
	"github.com/stretchr/testify/require"
)

func TestLimitNoteGivesARatioOnlyWhenUndisturbed(t *testing.T) {
	require.Equal(t, "FMA peak right after: 100.0 GFLOP/s, this is 80% of it",
		limitNote("FMA peak", "GFLOP/s", 100, 110, 80))
	// The ceiling re-measured far below the run's best: a busy machine.
	require.Equal(t, "FMA peak right after: 0.4 GFLOP/s, under half the run's best (110.0): the machine was busy, no ratio given",
		limitNote("FMA peak", "GFLOP/s", 0.4, 110, 6.7))
	// A result over the ceiling measured right after it.
	require.Equal(t, "STREAM right after: 10.0 GB/s, below this result (12.0): a measurement was disturbed, no ratio given",
		limitNote("STREAM", "GB/s", 10, 11, 12))
}

func TestTargetOverTheCeilingIsNotJudged(t *testing.T) {
	rep := bench.Report{Limits: map[string]float64{limitDRAM: 10}}
	res := bench.Result{Name: "add 10M", Bytes: 12e9, Median: 1e9, Limit: limitDRAM}
	got, met, known := fractionAtLeast(0.9)(rep, res)
	require.False(t, met)
	require.False(t, known)
	require.Contains(t, got, "over the ceiling")
}

func TestHelpExitsZeroAndSaysHowLong(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"--help"}, &out, &errOut))
	require.Contains(t, errOut.String(), "How long it takes")
	require.Contains(t, errOut.String(), "-quick")
	require.Equal(t, 2, run([]string{"--nosuch"}, &out, &errOut))
}
