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

	w.report(3 * time.Millisecond) // a third: contended, serial for 64 ms
	require.True(t, contended())
	require.Equal(t, int64(64*time.Millisecond), serialSpan.Load())
	w.report(3 * time.Millisecond) // contended again: the span doubles
	require.Equal(t, int64(128*time.Millisecond), serialSpan.Load())
	for range 20 {
		w.report(3 * time.Millisecond)
	}
	require.Equal(t, int64(maxSerial), serialSpan.Load())

	(&waitClock{}).report(time.Millisecond) // a clean parallel product resets the span
	require.Zero(t, serialSpan.Load())
	(&waitClock{waited: time.Microsecond}).report(2 * time.Microsecond)
	require.Equal(t, int64(minSerial), serialSpan.Load(), "at least minSerial")

	var nilClock *waitClock
	done := false
	nilClock.waitUntil(func() bool { d := done; done = true; return d })
	require.True(t, done)
}
