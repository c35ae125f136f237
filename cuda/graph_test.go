//go:build cgo && linux

package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// graphStep is a two-launch step on n floats: mid = src reversed, dst =
// mid; a third launch (dst again, from src) when long is set.
func graphStep(t *testing.T, d *Device, src, mid, dst device.Buffer, n int, long bool) {
	t.Helper()
	rev := device.View{Buf: src, DType: device.Float32, Offset: n - 1, Shape: []int{n}, Strides: []int{-1}}
	require.NoError(t, d.Copy(&device.CopyKernel{Dst: device.Contiguous(mid, device.Float32, 0, []int{n}), Src: rev}))
	require.NoError(t, d.Copy(&device.CopyKernel{Dst: device.Contiguous(dst, device.Float32, 0, []int{n}), Src: device.Contiguous(mid, device.Float32, 0, []int{n})}))
	if long {
		require.NoError(t, d.Copy(&device.CopyKernel{Dst: device.Contiguous(dst, device.Float32, 0, []int{n}), Src: rev}))
	}
}

// stepData is step i's input of n floats.
func stepData(i, n int) []float64 {
	v := make([]float64, n)
	for k := range v {
		v[k] = float64(1000*i + k)
	}
	return v
}

// reversed returns v reversed.
func reversed(v []float64) []float64 {
	r := make([]float64, len(v))
	for i, x := range v {
		r[len(v)-1-i] = x
	}
	return r
}

// runSteps writes step data into src, runs graphStep and checks dst, for
// steps first..last.
func runSteps(t *testing.T, d *Device, src, mid, dst device.Buffer, n, first, last int, long bool) {
	t.Helper()
	for i := first; i <= last; i++ {
		vals := stepData(i, n)
		require.NoError(t, d.Write(src, 0, gputest.Encode(device.Float32, vals)))
		graphStep(t, d, src, mid, dst, n, long)
		require.Equal(t, reversed(vals), gputest.Download(t, d, dst, device.Float32, 0, n), "step %d", i)
	}
}

// TestGraphsReplayRepeatedSteps checks, through the fake driver's graphs,
// that a repeated step runs as plain launches the first time, as a graph
// built and launched the second, and as replays of that graph after
// (results right each time, no plain launch); that the same step on other
// buffers or sizes updates the nodes' parameters in place; that a step of
// another shape runs as plain launches until it repeats; and that Close
// destroys every graph.
func TestGraphsReplayRepeatedSteps(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<16)
	require.NoError(t, d.SetGraphs(true))
	const n = 300
	src, mid, dst := gputest.Alloc(t, d, 4*n), gputest.Alloc(t, d, 4*n), gputest.Alloc(t, d, 4*n)

	runSteps(t, d, src, mid, dst, n, 0, 3, false)
	s := d.GraphStats()
	assert.Equal(t, GraphStats{Segments: 4, Eager: 1, Built: 1, Replays: 2}, s)
	assert.Equal(t, 2, f.count(t, "cuLaunchKernel sf_copy"), "plain launches in the first step only")
	assert.Equal(t, 3, f.count(t, "cuGraphLaunch nodes=2"))
	assert.Equal(t, 6, f.count(t, "graph sf_copy"))

	src2, mid2, dst2 := gputest.Alloc(t, d, 4*n), gputest.Alloc(t, d, 4*n), gputest.Alloc(t, d, 4*n)
	runSteps(t, d, src2, mid2, dst2, n, 4, 5, false)
	runSteps(t, d, src, mid, dst, n-7, 6, 6, false)
	s = d.GraphStats()
	assert.Equal(t, uint64(5), s.Replays, "other buffers and sizes replay the same graph")
	assert.Equal(t, uint64(4), s.NodeUpdates, "both nodes changed for the new buffers, none in the step after, both for the old buffers' new size")
	assert.Equal(t, 2, f.count(t, "cuLaunchKernel sf_copy"))

	runSteps(t, d, src, mid, dst, n, 7, 9, true)
	s = d.GraphStats()
	assert.Equal(t, uint64(2), s.Built, "a new shape of step gets its own graph once it repeats")
	assert.Equal(t, uint64(2), s.Eager)
	assert.Equal(t, 5, f.count(t, "cuLaunchKernel sf_copy"))
	assert.Equal(t, 2, f.count(t, "cuGraphLaunch nodes=3"))
	assert.Nil(t, s.Off)

	require.NoError(t, d.Close())
	assert.Equal(t, 1, f.count(t, "cuGraphDestroy live=0"), "every graph destroyed: %v", f.calls(t))
}

// TestGraphsDeferFrees checks that a stream-ordered free of a buffer that
// queued launches use waits for them: the fake driver frees at once, so
// an early free would make the launch read freed memory and fail.
func TestGraphsDeferFrees(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<16)
	require.NoError(t, d.SetGraphs(true))
	const n = 64
	src, dst := gputest.Alloc(t, d, 4*n), gputest.Alloc(t, d, 4*n)
	for i := range 3 {
		vals := stepData(i, n)
		require.NoError(t, d.Write(src, 0, gputest.Encode(device.Float32, vals)))
		mid, err := d.Alloc(4 * n)
		require.NoError(t, err)
		graphStep(t, d, src, mid, dst, n, false)
		d.Free(mid)
		require.NoError(t, d.Sync())
		require.Equal(t, reversed(vals), gputest.Download(t, d, dst, device.Float32, 0, n), "step %d", i)
	}
	assert.Equal(t, 3, f.count(t, "cuMemFreeAsync"))
	assert.Equal(t, uint64(2), d.GraphStats().Built+d.GraphStats().Replays)
}

// TestGraphsFallBack checks the fallbacks: a graph that fails to
// instantiate turns graphs off and its step runs as plain launches (right
// results, the failure in GraphStats.Off); profiling runs launches
// plainly, timed; a driver without graphs refuses SetGraphs.
func TestGraphsFallBack(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<16)
	require.NoError(t, d.SetGraphs(true))
	const n = 100
	src, mid, dst := gputest.Alloc(t, d, 4*n), gputest.Alloc(t, d, 4*n), gputest.Alloc(t, d, 4*n)
	t.Setenv("SF_FAKE_CUDA_FAIL", "cuGraphInstantiateWithFlags=2")
	runSteps(t, d, src, mid, dst, n, 0, 3, false)
	s := d.GraphStats()
	assert.Zero(t, s.Built)
	assert.Equal(t, uint64(1), s.Failures)
	require.Error(t, s.Off)
	assert.Contains(t, s.Off.Error(), "cuGraphInstantiateWithFlags: CUDA_ERROR_OUT_OF_MEMORY")
	assert.Equal(t, 8, f.count(t, "cuLaunchKernel sf_copy"), "every step launched plainly")
	assert.Equal(t, 1, f.count(t, "cuGraphDestroy"), "the failed graph was destroyed")

	t.Setenv("SF_FAKE_CUDA_FAIL", "")
	p := f.open(t, 1<<16)
	require.NoError(t, p.SetGraphs(true))
	src, mid, dst = gputest.Alloc(t, p, 4*n), gputest.Alloc(t, p, 4*n), gputest.Alloc(t, p, 4*n)
	p.SetProfiling(true)
	runSteps(t, p, src, mid, dst, n, 0, 2, false)
	require.NoError(t, p.Sync())
	assert.Len(t, p.KernelTimes(), 6, "profiled launches are plain and timed")
	assert.Zero(t, p.GraphStats().Segments)

	g := buildFake(t, []string{"-DFAKE_NO_GRAPHS"}, nil)
	t.Setenv(EnvGraphs, "1")
	nd := g.open(t, 1<<16)
	err := nd.SetGraphs(true)
	require.ErrorIs(t, err, ErrNotImplemented)
	assert.Contains(t, err.Error(), "cuGraphCreate")
}

// TestGraphsFromEnvironment checks that EnvGraphs=1 turns graphs on at
// open.
func TestGraphsFromEnvironment(t *testing.T) {
	f := buildFake(t, nil, nil)
	t.Setenv(EnvGraphs, "1")
	d := f.open(t, 1<<16)
	const n = 50
	src, mid, dst := gputest.Alloc(t, d, 4*n), gputest.Alloc(t, d, 4*n), gputest.Alloc(t, d, 4*n)
	runSteps(t, d, src, mid, dst, n, 0, 2, false)
	assert.Equal(t, GraphStats{Segments: 3, Eager: 1, Built: 1, Replays: 1}, d.GraphStats())
}

// pokeSource is a test kernel storing 1 in the ints at address q.p.
const pokeSource = `
#ifndef SF_CHECK
#define SF_CHECK(p, n) ((void)0)
#endif
struct sf_poke_params {
	long long n, rank;
	unsigned long long p;
};
extern "C" __global__ void sf_poke(const sf_poke_params q) {
	int *p = (int *)q.p + threadIdx.x;
	SF_CHECK(p, 4);
	*p = 1;
}
`

// TestGraphsQueuedKernelError checks that a queued kernel's illegal
// address is returned by the operation that submits the queue, naming the
// kernel, and loses the device.
func TestGraphsQueuedKernelError(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<16)
	require.NoError(t, d.SetGraphs(true))
	m, err := d.kernel(pokeSource, "poke.cu", "sf_poke")
	require.NoError(t, err)
	require.NoError(t, d.launchBlocks(m, 1, 32, []int64{32, 0, 64}), "queued, not run")
	err = d.Sync()
	require.ErrorIs(t, err, device.ErrDeviceLost)
	assert.Contains(t, err.Error(), "kernel poke (queued for a graph)")
	assert.Contains(t, err.Error(), "CUDA_ERROR_ILLEGAL_ADDRESS")
}
