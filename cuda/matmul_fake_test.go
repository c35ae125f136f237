//go:build cgo && linux

package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// barrierSource is a test kernel that needs shared memory and barriers:
// each block reverses its 256 ints through shared memory (right only if
// every thread's store precedes every load) and then sums them with a
// shared-memory tree (a barrier per level), storing the sum after the
// data. With divergent set, thread 0 returns before the first barrier.
const barrierSource = `
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
struct sf_barrier_params {
	long long n, divergent;
	unsigned long long p;
};
extern "C" __global__ void sf_barrier_test(const sf_barrier_params q) {
	__shared__ int s[256];
	int *p = (int *)q.p + blockIdx.x * blockDim.x;
	const int t = (int)threadIdx.x;
	if (q.divergent && t == 0) {
		return;
	}
	s[t] = p[t];
	__syncthreads();
	p[t] = s[blockDim.x - 1 - t];
	__syncthreads();
	for (int h = (int)blockDim.x / 2; h > 0; h /= 2) {
		if (t < h) {
			s[t] += s[t + h];
		}
		__syncthreads();
	}
	if (t == 0) {
		((int *)q.p)[q.n + blockIdx.x] = s[0];
	}
}
`

// TestFakeBarriers checks that the fake driver runs a block's threads as
// coroutines meeting at __syncthreads, with shared memory per block, and
// fails a launch whose threads do not all reach a barrier.
func TestFakeBarriers(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<16)
	const blocks, threads = 3, 256
	vals := make([]float64, blocks*threads+blocks)
	for i := range blocks * threads {
		vals[i] = float64(i)
	}
	buf := gputest.Upload(t, d, device.Int32, vals)
	b, err := d.own(buf, "test")
	require.NoError(t, err)
	m, err := d.kernel(barrierSource, "barrier.cu", "sf_barrier_test")
	require.NoError(t, err)
	require.NoError(t, d.launchBlocks(m, blocks, threads, []int64{blocks * threads, 0, int64(b.ptr)}))
	got := gputest.Download(t, d, buf, device.Int32, 0, len(vals))
	for blk := 0; blk < blocks; blk++ {
		sum := 0.0
		for i := 0; i < threads; i++ {
			want := float64(blk*threads + threads - 1 - i)
			require.Equal(t, want, got[blk*threads+i], "block %d element %d", blk, i)
			sum += want
		}
		require.Equal(t, sum, got[blocks*threads+blk], "block %d's sum", blk)
	}
	err = d.launchBlocks(m, blocks, threads, []int64{blocks * threads, 1, int64(b.ptr)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CUDA_ERROR_LAUNCH_FAILED")
	assert.Equal(t, 1, f.count(t, "barrier not reached by every thread in sf_barrier_test"))
}
