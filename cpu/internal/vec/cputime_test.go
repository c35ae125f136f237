//go:build linux

package vec

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns this OS thread's CPU time.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}

// TestComputeCost reports each kernel's CPU time per element on L1-resident
// data, measured in thread CPU time so that a loaded machine's time slicing
// does not count, the best of 40 short runs (a sibling hyperthread's load
// still slows some runs down) (opt-in: -vec.report).
func TestComputeCost(t *testing.T) {
	if !*reportFlag {
		t.Skip("run with -vec.report")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const n, reps = 4096, 500
	r := rand.New(rand.NewPCG(1, 2))
	x, y, dst := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = 8*r.Float32() - 4
		y[i] = 8*r.Float32() - 4
	}
	s := "| kernel | level | ns/element (thread CPU time, L1-resident) | GB/s one core could sustain |\n|---|---|---|---|\n"
	for _, op := range benchOps {
		for _, l := range Available()[1:] {
			prev := SetLevel(l)
			best := time.Duration(1 << 62)
			for range 40 {
				c0 := threadCPU()
				for range reps {
					op.run(dst, x, y)
				}
				best = min(best, threadCPU()-c0)
			}
			SetLevel(prev)
			ns := float64(best.Nanoseconds()) / float64(n*reps)
			s += fmt.Sprintf("| %s | %v | %.3f | %.1f |\n", op.name, l, ns, float64(op.bytes)/ns)
		}
	}
	t.Log("\n" + s)
}
