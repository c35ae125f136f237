package gemm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEvenShares checks the column widths chosen for the workers' shares.
func TestEvenShares(t *testing.T) {
	for _, c := range []struct{ np, tn, threads, want int }{
		{25, 8, 2, 6},   // the MLP's dW1: 8+8 | 8+1 panels became 6+6 | 6+6+1
		{32, 16, 2, 16}, // 1024³: already even
		{2, 1, 2, 1},    // one column each
		{16, 16, 2, 16}, // a single column of tiles: one queue, nothing to even out
		{16, 8, 2, 8},   // even; narrower widths are no better
		{10, 4, 3, 4},   // columns 4, 4, 2: one each
	} {
		require.Equal(t, c.want, evenShares(c.np, c.tn, c.threads), "np %d tn %d threads %d", c.np, c.tn, c.threads)
	}
}
