package workpool

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAwait checks that Await keeps polling a condition that becomes true
// and reports it, and gives up on one that stays false, reporting false
// once AwaitSpin has passed.
func TestAwait(t *testing.T) {
	polls := 0
	t0 := time.Now()
	if Await(func() bool { polls++; return polls == 1000 }) {
		require.Equal(t, 1000, polls)
	} else { // only when this goroutine lost its processor for AwaitSpin
		require.GreaterOrEqual(t, time.Since(t0), AwaitSpin)
	}

	t0 = time.Now()
	require.False(t, Await(func() bool { return false }))
	require.GreaterOrEqual(t, time.Since(t0), AwaitSpin)
}
