package gemm

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPeakGFLOPS(t *testing.T) {
	require.Greater(t, PeakGFLOPS(1, 20*time.Millisecond), 0.0)
	for _, l := range supportedLevels() {
		g, err := PeakGFLOPSFor(l.String(), 1, 10*time.Millisecond)
		require.NoError(t, err)
		require.Greater(t, g, 0.0, l.String())
	}
	_, err := PeakGFLOPSFor("sse9", 1, time.Millisecond)
	require.ErrorContains(t, err, "unknown instruction set")
}
