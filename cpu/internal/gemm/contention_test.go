package gemm

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestContentionFallback(t *testing.T) {
	defer serialLeft.Store(0)
	serialLeft.Store(0)
	require.False(t, contended())

	w := &waitClock{waited: time.Millisecond}
	w.report(10 * time.Millisecond) // a tenth: normal
	require.False(t, contended())

	w.report(3 * time.Millisecond) // a third: contended
	for range serialAfterContention {
		require.True(t, contended())
	}
	require.False(t, contended(), "parallel again after the serial products")

	var nilClock *waitClock
	done := false
	nilClock.waitUntil(func() bool { d := done; done = true; return d })
	require.True(t, done)
}
