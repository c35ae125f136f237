package cputime

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestProcessAdvancesWithWork(t *testing.T) {
	t0, ok := Process()
	if !ok {
		require.NotContains(t, []string{"linux", "darwin", "freebsd"}, runtime.GOOS, "a Unix system must report CPU time")
		t.Skip("no process CPU time on " + runtime.GOOS)
	}
	x := 1.0
	for start := time.Now(); time.Since(start) < 20*time.Millisecond; {
		x = x*1.0000001 + 1e-9 // busy: burns CPU time
	}
	t1, _ := Process()
	require.Greater(t, t1, t0, "no CPU time measured over 20 ms of work (x=%g)", x)
}
