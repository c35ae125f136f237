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
	w.report(10*time.Millisecond, 0, 0, 2) // a tenth: normal
	require.False(t, contended())

	w.report(3*time.Millisecond, 0, 0, 2) // a third: a helper that came late
	require.False(t, contended())

	w.report(1500*time.Microsecond, 0, 0, 2) // two thirds: contended, serial for 64 ms
	require.True(t, contended())
	require.Equal(t, int64(64*time.Millisecond), serialSpan.Load())
	w.report(1500*time.Microsecond, 0, 0, 2) // contended again: the span doubles
	require.Equal(t, int64(128*time.Millisecond), serialSpan.Load())
	for range 20 {
		w.report(1500*time.Microsecond, 0, 0, 2)
	}
	require.Equal(t, int64(maxSerial), serialSpan.Load())

	(&waitClock{}).report(time.Millisecond, 0, 0, 2) // a clean parallel product resets the span
	require.Zero(t, serialSpan.Load())
	resetContention()
	(&waitClock{waited: 30 * time.Microsecond}).report(40*time.Microsecond, 0, 0, 2)
	require.False(t, contended(), "waits under minStall are a late helper's last tile")
	(&waitClock{waited: 60 * time.Microsecond}).report(80*time.Microsecond, 0, 0, 2)
	require.True(t, contended())
	require.Equal(t, int64(64*60*time.Microsecond), serialSpan.Load(), "64 times the wait")

	var nilClock *waitClock
	done := false
	nilClock.waitUntil(func() bool { d := done; done = true; return d })
	require.True(t, done)
}

func TestAbsentHelperIsContention(t *testing.T) {
	defer resetContention()
	resetContention()

	(&waitClock{}).report(time.Millisecond, 0, 10, 2)
	require.False(t, contended(), "no helper was polling: its absence proves nothing")
	(&waitClock{judged: true}).report(time.Millisecond, 2, 10, 2)
	require.False(t, contended(), "a polling helper that took 2 of 10 tiles ran")
	(&waitClock{judged: true}).report(time.Millisecond, 0, 3, 2)
	require.False(t, contended(), "too few tiles to judge")

	(&waitClock{judged: true}).report(time.Millisecond, 1, 10, 2)
	require.True(t, contended(), "a polling helper that took 1 of 10 tiles was descheduled")
	require.Equal(t, int64(minSerial), serialSpan.Load())
	(&waitClock{judged: true}).report(time.Millisecond, 0, 10, 2)
	require.Equal(t, int64(2*minSerial), serialSpan.Load(), "the span doubles")

	(&waitClock{}).report(time.Millisecond, 0, 10, 2)
	require.Equal(t, int64(2*minSerial), serialSpan.Load(), "an unjudged probe keeps the doubling")
	(&waitClock{judged: true}).report(time.Millisecond, 5, 10, 2)
	require.Zero(t, serialSpan.Load(), "a judged product with a fair share resets it")
}
