package gemm

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestContentionFallback(t *testing.T) {
	defer resetContention()
	resetContention()
	require.False(t, contended())

	w := &waitClock{waited: time.Millisecond}
	w.report(10 * time.Millisecond) // a tenth: normal
	require.False(t, contended())

	w.report(3 * time.Millisecond) // a third: a helper that came late
	require.False(t, contended())

	w.report(1500 * time.Microsecond) // two thirds: contended, serial for 64 ms
	require.True(t, contended())
	require.Equal(t, int64(64*time.Millisecond), serialSpan.Load())
	w.report(1500 * time.Microsecond) // contended again: the span doubles
	require.Equal(t, int64(128*time.Millisecond), serialSpan.Load())
	for range 20 {
		w.report(1500 * time.Microsecond)
	}
	require.Equal(t, int64(maxSerial), serialSpan.Load())

	(&waitClock{}).report(time.Millisecond) // a clean parallel product resets the span
	require.Zero(t, serialSpan.Load())
	resetContention()
	(&waitClock{waited: 30 * time.Microsecond}).report(40 * time.Microsecond)
	require.False(t, contended(), "waits under minStall are a late helper's last tile")
	(&waitClock{waited: 60 * time.Microsecond}).report(80 * time.Microsecond)
	require.True(t, contended())
	require.Equal(t, int64(64*60*time.Microsecond), serialSpan.Load(), "64 times the wait")

	var nilClock *waitClock
	done := false
	nilClock.waitUntil(func() bool { d := done; done = true; return d })
	require.True(t, done)
}
