package gemm

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// anonHugeKiB reads AnonHugePages of this process, or -1 when unknown.
func anonHugeKiB() int {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return -1
	}
	m := regexp.MustCompile(`AnonHugePages:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// TestLargeBuffersHuge checks that large packing buffers are reused and, where
// the kernel offers transparent huge pages, backed by them.
func TestLargeBuffersHuge(t *testing.T) {
	before := anonHugeKiB()
	pb := getBuf(3 << 20) // 12 MiB
	for i := range pb.data {
		pb.data[i] = 1
	}
	after := anonHugeKiB()
	mode, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	t.Logf("THP %q: AnonHugePages %d kB -> %d kB", mode, before, after)
	require.NotNil(t, pb.free, "a large buffer comes from allocLarge")
	putBuf(pb)
	again := getBuf(2 << 20)
	require.Same(t, pb, again, "an idle large buffer is reused")
	putBuf(again)
}
