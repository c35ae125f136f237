package tensor

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestReclaimGrowthAdaptsToCollectionCost checks that the growth allowed
// between reclaims rises one step at a time while collections take a large
// share of the wall time, stops at MaxReclaimGrowth, stays put in between, and
// falls back to 1 once they are cheap.
func TestReclaimGrowthAdaptsToCollectionCost(t *testing.T) {
	var r reclaimer
	expensive := func() { r.adapt(2*time.Millisecond, time.Millisecond) } // a third of the time
	cheap := func() { r.adapt(100*time.Millisecond, time.Millisecond) }   // 1%
	middling := func() { r.adapt(15*time.Millisecond, time.Millisecond) } // 6%

	expensive()
	require.EqualValues(t, 2, r.growth)
	for range 10 {
		expensive()
	}
	require.EqualValues(t, MaxReclaimGrowth, r.growth)
	middling()
	require.EqualValues(t, MaxReclaimGrowth, r.growth, "a share between the thresholds keeps the growth")
	cheap()
	require.EqualValues(t, MaxReclaimGrowth-1, r.growth)
	for range 10 {
		cheap()
	}
	require.EqualValues(t, 1, r.growth)
}
