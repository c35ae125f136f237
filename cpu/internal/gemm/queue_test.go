package gemm

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// initQueue gives worker w tasks [bounds[w-1], bounds[w]) (from 0 for w = 0).
func initQueue(q *taskQueue, bounds []int) {
	q.resize(len(bounds))
	start := 0
	for w, end := range bounds {
		q.set(w, start, end)
		start = end
	}
}

func TestTaskQueueOwnRangeFirst(t *testing.T) {
	var q taskQueue
	initQueue(&q, []int{3, 3, 7})
	require.Equal(t, 3, q.claim(2), "worker 2 starts with its own range")
	require.Equal(t, 4, q.claim(1), "worker 1's range is empty: it takes from the next range")
	require.Equal(t, 0, q.claim(0), "worker 0 starts with its own range")
	for range 2 {
		q.claim(0)
	}
	require.Equal(t, 5, q.claim(0), "worker 0's range is used up: it takes from the others'")
}

func TestTaskQueueEachTaskOnce(t *testing.T) {
	var q taskQueue
	const workers, tasks = 5, 1000
	bounds := []int{100, 100, 550, 900, tasks}
	initQueue(&q, bounds)
	seen := make([]int, tasks)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := q.claim(w); t >= 0; t = q.claim(w) {
				mu.Lock()
				seen[t]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for i, n := range seen {
		require.Equal(t, 1, n, "task %d", i)
	}
	require.Equal(t, -1, q.claim(0))
}

// TestBlockShares checks that the per-worker shares of a block cover every
// tile and every A and B panel exactly once.
func TestBlockShares(t *testing.T) {
	im := implFor(active)
	for _, s := range []shape{{1024, 1024, 1024}, {64, 128, 784}, {64, 10, 128}, {500, 70, 33}, {14, 1000, 5}} {
		for _, threads := range []int{1, 2, 3, 8} {
			p := &problem{m: s.m, n: s.n, k: s.k}
			ms, ns, ks := superBlocks(p, im)
			bs := planBlocks(nil, p, im, ms, ns, ks, threads, true, true)
			for bi := range bs {
				b := &bs[bi]
				bPanels, aPanels := make([]int, b.np), make([]int, b.mp)
				tasks := 0
				for i, sh := range b.shares {
					require.Equal(t, tasks, sh.first, "%v threads=%d share %d", s, threads, i)
					for q := sh.b0; q < sh.b1; q++ {
						bPanels[q]++
					}
					for q := sh.a0; q < sh.a1; q++ {
						aPanels[q]++
					}
					require.Equal(t, ceilDiv(sh.b1-sh.b0, b.bPerTask), sh.bTasks)
					tasks += sh.bTasks + sh.a1 - sh.a0
				}
				require.Equal(t, b.packTasks, tasks)
				for q, n := range bPanels {
					want := 1
					if b.i0 > 0 {
						want = 0 // packed by the block above
					}
					require.Equal(t, want, n, "%v threads=%d B panel %d", s, threads, q)
				}
				for q, n := range aPanels {
					require.Equal(t, 1, n, "%v threads=%d A panel %d", s, threads, q)
				}
				last := b.tileQ.ranges[len(b.tileQ.ranges)-1].end
				require.Equal(t, int64(b.tiles), last)
			}
		}
	}
}

// TestSgemmShares runs parallel products on 2 to 4 workers (GOMAXPROCS
// raised to match) on shapes whose tiles split into per-worker shares
// unevenly, including several super-blocks.
func TestSgemmShares(t *testing.T) {
	seed := baseSeed(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	shapes := []shape{{64, 128, 300}, {77, 333, 90}, {200, 65, 170}, {15, 900, 100}}
	for si, s := range shapes {
		tc := newCase(seed+uint64(si), si%2 == 1, si >= 2, s.m, s.n, s.k, 1.5, 0.5, 3)
		want, tol := tc.reference()
		forEachLevel(t, func(t *testing.T) {
			for _, threads := range []int{2, 3, 4} {
				runtime.GOMAXPROCS(threads)
				tc.check(t, threads, want, tol)
			}
		})
	}
	oldDepth, oldBudget := maxDepth, packBudget
	defer func() { maxDepth, packBudget = oldDepth, oldBudget }()
	maxDepth, packBudget = 70, 3000
	tc := newCase(seed+99, false, true, 100, 190, 150, 1, 0.25, 2)
	want, tol := tc.reference()
	forEachLevel(t, func(t *testing.T) {
		for _, threads := range []int{2, 3} {
			runtime.GOMAXPROCS(threads)
			tc.check(t, threads, want, tol)
		}
	})
}
