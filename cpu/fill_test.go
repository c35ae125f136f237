package cpu

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFillSetsEveryElement checks fill at every length up to 300 (the loop,
// its boundary at 32, and each doubling's partial last copy), leaving the
// element after the slice alone.
func TestFillSetsEveryElement(t *testing.T) {
	for n := range 301 {
		buf := make([]float32, n+1)
		buf[n] = -1
		fill(buf[:n], 2.5)
		for i := range n {
			if float32(2.5) != buf[i] {
				require.Equal(t, float32(2.5), buf[i], "length %d, element %d", n, i)
			}
		}
		if float32(-1) != buf[n] {
			require.Equal(t, float32(-1), buf[n], "length %d wrote past its end", n)
		}
	}
}
