package vec

import (
	"flag"
	"testing"
)

var bwBytes = flag.Int("vec.bwbytes", 0, "run TestBandwidthBig with this many bytes (e.g. 1610612736)")

// TestBandwidthBig prints MeasureBandwidth on a footprint of -vec.bwbytes
// (opt-in), for figures beyond the last-level cache.
func TestBandwidthBig(t *testing.T) {
	if *bwBytes == 0 {
		t.Skip("run with -vec.bwbytes")
	}
	for _, threads := range []int{1, 2} {
		t.Logf("MeasureBandwidth(%d, %d): %.2f GB/s", threads, *bwBytes, MeasureBandwidth(threads, *bwBytes))
	}
}
