package tensor_test

import (
	"fmt"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// withoutGCPacing turns the garbage collector's own pacing off for the
// test, as device memory outside the Go heap would on a GPU: only the
// reclaimer then returns unreachable tensors' memory.
func withoutGCPacing(t *testing.T) {
	old := debug.SetGCPercent(-1)
	t.Cleanup(func() { debug.SetGCPercent(old) })
}

// TestUnscopedLoopMemoryIsBounded adds two 1 MB vectors 300 times without
// releasing a result and checks that the pool reserves at most the live set
// plus the reclaimer's largest growth and one result, reusing its blocks,
// where keeping every result would reserve 300 MB. Collections cost far more
// than these adds, so the growth reaches its maximum here.
func TestUnscopedLoopMemoryIsBounded(t *testing.T) {
	withoutGCPacing(t)
	dev := openCPU(t)
	const n, floor = 1 << 18, 1 << 20
	tensor.SetReclaimFloor(dev, floor)
	a, b := tensor.Rand(dev, n), tensor.Rand(dev, n)
	require.NoError(t, tensor.Realize(a, b))
	before := dev.PoolStats()
	var peak int64
	for range 300 {
		c := a.Add(b)
		require.NoError(t, c.Realize())
		peak = max(peak, dev.PoolStats().ReservedBytes)
	}
	after := dev.PoolStats()
	live := before.BytesInUse + 4*n // a, b and the newest result
	bound := live + tensor.MaxReclaimGrowth*max(live, floor) + 4*n
	require.LessOrEqual(t, peak, bound, "reserved bytes grew beyond the reclaimer's bound")
	require.Greater(t, tensor.Reclaims(dev), int64(10))
	require.Greater(t, after.Reuses-before.Reuses, int64(250), "the loop should reuse the pool's blocks")
}

// TestReclaimKeepsReachableTensors forces a reclaim every few steps while
// results stay reachable in every way the API allows (a slice, a view whose
// base is garbage, an unrealized chain whose intermediates are garbage, a
// parameter updated by Assign, a tensor kept out of a scope, a leaf's
// gradient) and checks all their values at the end.
func TestReclaimKeepsReachableTensors(t *testing.T) {
	withoutGCPacing(t)
	dev := openCPU(t)
	const n = 1 << 16
	tensor.SetReclaimFloor(dev, 1)
	tensor.FixReclaimGrowth(dev)
	a := tensor.Ones(dev, n)
	param := tensor.Zeros(dev, n)
	leaf := tensor.Ones(dev, 4).SetRequiresGrad(true)
	var kept []*tensor.Tensor
	var keptStep []int
	var views []*tensor.Tensor
	chain := a.MulScalar(0)
	var fromScope *tensor.Tensor
	for i := range 200 {
		c := a.MulScalar(float64(i))
		require.NoError(t, c.Realize())
		if i%7 == 0 {
			kept = append(kept, c)
			keptStep = append(keptStep, i)
		}
		if i%50 == 0 {
			views = append(views, a.AddScalar(float64(i)).Narrow(0, 10, 5))
		}
		chain = chain.AddScalar(1) // realized only at the end
		param.Assign(param.AddScalar(1))
		if i == 100 {
			dev.Scope(func() { fromScope = a.MulScalar(-1).Keep() })
		}
		if i%40 == 0 {
			require.NoError(t, leaf.MulScalar(2).Sum().Backward())
		}
	}
	require.Greater(t, tensor.Reclaims(dev), int64(20))
	for k, c := range kept {
		v, err := c.Float32s()
		require.NoError(t, err)
		require.Equal(t, float32(keptStep[k]), v[0])
		require.Equal(t, float32(keptStep[k]), v[n-1])
	}
	for k, v := range views {
		vals, err := v.Float32s()
		require.NoError(t, err)
		require.Equal(t, []float32{1, 1, 1, 1, 1}, func() []float32 {
			for j := range vals {
				vals[j] -= float32(50 * k)
			}
			return vals
		}())
	}
	got, err := chain.Float32s()
	require.NoError(t, err)
	require.Equal(t, float32(200), got[n/2])
	got, err = param.Float32s()
	require.NoError(t, err)
	require.Equal(t, float32(200), got[0])
	got, err = fromScope.Float32s()
	require.NoError(t, err)
	require.Equal(t, float32(-1), got[1])
	got, err = leaf.Grad().Float32s()
	require.NoError(t, err)
	require.Equal(t, []float32{10, 10, 10, 10}, got)
}

// TestReclaimWithSeveralGoroutines runs unscoped loops on one device from
// four goroutines, each keeping some results, so that one goroutine's
// reclaim runs while the others record and realize.
func TestReclaimWithSeveralGoroutines(t *testing.T) {
	withoutGCPacing(t)
	dev := openCPU(t)
	const n = 1 << 14
	tensor.SetReclaimFloor(dev, 1)
	tensor.FixReclaimGrowth(dev)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for g := range 4 {
		wg.Go(func() { errs[g] = unscopedWorker(dev, g, n) })
	}
	wg.Wait()
	for g, err := range errs {
		require.NoError(t, err, "goroutine %d", g)
	}
	require.Greater(t, tensor.Reclaims(dev), int64(0))
}

// unscopedWorker realizes 100 results of g+i without releasing them,
// keeps every tenth and checks their values at the end.
func unscopedWorker(dev *tensor.Device, g, n int) error {
	base := tensor.Full(dev, float64(g), n)
	var kept []*tensor.Tensor
	for i := range 100 {
		c := base.AddScalar(float64(i))
		if err := c.Realize(); err != nil {
			return err
		}
		if i%10 == 0 {
			kept = append(kept, c)
		}
	}
	for k, c := range kept {
		v, err := c.Float32s()
		if err != nil {
			return err
		}
		if want := float32(g + 10*k); v[n-1] != want {
			return fmt.Errorf("kept result %d: %v, want %v", k, v[n-1], want)
		}
	}
	return nil
}
