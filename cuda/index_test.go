//go:build cgo && linux

package cuda

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestIndexKernels runs the shared gather, scatter and out-of-range index
// tests (every dtype gathered along every axis from reversed views,
// scatter_add with colliding indices along every axis, indices 3, -1 and
// 2^20 reported once each by the call or the next Sync) on kernels/index.cu
// through the fake driver, then compiles both entry points' sources with
// clang-19 for sm_80 and sm_90.
func TestIndexKernels(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	gputest.RunKinds(t, d, "Gather")
	gputest.RunKinds(t, d, "Scatter")
	gputest.RunKinds(t, d, "IndexErrors")
	assert.Equal(t, 2, f.count(t, "nvrtcCreateProgram index.cu"), "one compilation per entry point")
	assert.Zero(t, f.count(t, "illegal address"))
	t.Run("PTX", func(t *testing.T) {
		for _, entry := range []string{gatherEntry, scatterEntry} {
			compileSourcesToPTX(t, generatedSources(t, f, entry), entry)
		}
	})
}

// TestIndexHighRank gathers and scatters along axis 4 of ten dimensions
// whose views no merging reduces (Index and the other view transposed), so
// the host loops over two of them: four launches each, checked against
// the values computed here.
func TestIndexHighRank(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	rng := gputest.NewRand(t)
	f32 := device.Float32
	const axis = 4
	data := []int{2, 2, 2, 2, 3, 2, 2, 2, 2, 2}
	shape := slices.Clone(data)
	shape[axis] = 2
	gen := func(r *rand.Rand) float64 { return float64(r.IntN(data[axis])) }
	ix := gputest.Make(t, d, rng, device.Int32, shape, gputest.Reversed, gen)
	// at is the row-major position in data of Index's element i.
	at := func(i []int) int {
		j := slices.Clone(i)
		j[axis] = int(ix.Values[device.Contiguous(nil, f32, 0, shape).At(i)])
		return device.Contiguous(nil, f32, 0, data).At(j)
	}

	src := gputest.Make(t, d, rng, f32, data, gputest.Strided, gputest.Normal(f32))
	out := gputest.Output(t, d, f32, 3, shape)
	require.NoError(t, d.Gather(&device.GatherKernel{Axis: axis, Src: src.View, Index: ix.View, Out: out}))
	var want []float64
	eachIndex(shape, func(i []int) { want = append(want, src.Values[at(i)]) })
	gputest.Check(t, "gather", gputest.Fetch(t, d, out), want, gputest.Exact)

	dst := gputest.Make(t, d, rng, f32, data, gputest.Contiguous, gputest.Normal(f32))
	upd := gputest.Make(t, d, rng, f32, shape, gputest.Reversed, gputest.Normal(f32))
	require.NoError(t, d.Scatter(&device.ScatterKernel{Axis: axis, Dst: dst.View, Index: ix.View, Src: upd.View}))
	want = slices.Clone(dst.Values)
	p := 0
	eachIndex(shape, func(i []int) {
		want[at(i)] += upd.Values[p]
		p++
	})
	gputest.Check(t, "scatter", gputest.Fetch(t, d, dst.View), want, gputest.Tol{Abs: 1e-6, Rel: 1e-6})
	assert.Equal(t, 4, f.count(t, "cuLaunchKernel sf_gather"))
	assert.Equal(t, 4, f.count(t, "cuLaunchKernel sf_scatter"))
}

// eachIndex calls fn with every index of shape in row-major order.
func eachIndex(shape []int, fn func(i []int)) {
	i := make([]int, len(shape))
	for p := 0; p < device.NumElements(shape); p++ {
		fn(i)
		for k := len(i) - 1; k >= 0; k-- {
			if i[k]++; i[k] < shape[k] {
				break
			}
			i[k] = 0
		}
	}
}

// TestIndexErrorReporting checks that an out-of-range index is reported by
// the next Read as well as Sync, names the call that hit it among several
// (the tag), leaves the data alone, and that more calls than the status
// has tags for keep the error for the next Sync.
func TestIndexErrorReporting(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<16)
	f32, i32 := device.Float32, device.Int32
	src := gputest.Upload(t, d, f32, []float64{1, 2, 3, 4, 5, 6})
	good := gputest.Upload(t, d, i32, []float64{0, 1})
	bad := gputest.Upload(t, d, i32, []float64{1, -7})
	out := gputest.Output(t, d, f32, 0, []int{1, 2})
	gather := func(srcShape []int, ix device.Buffer) error {
		return d.Gather(&device.GatherKernel{Axis: 1, Src: device.Contiguous(src, f32, 0, srcShape),
			Index: device.Contiguous(ix, i32, 0, []int{1, 2}), Out: out})
	}
	require.NoError(t, gather([]int{2, 3}, good))
	require.NoError(t, gather([]int{1, 6}, bad))
	require.NoError(t, gather([]int{3, 2}, good))
	err := d.Read(out.Buf, 0, make([]byte, 8))
	require.Error(t, err)
	assert.Equal(t, "cuda: gather: index -7 out of range [0,6) along axis 1 (Src shape [1 6], Index shape [1 2])", err.Error())
	require.NoError(t, d.Sync(), "reported once")

	dst := gputest.Upload(t, d, f32, []float64{0, 0, 0})
	require.NoError(t, d.Scatter(&device.ScatterKernel{Axis: 0, Dst: device.Contiguous(dst, f32, 0, []int{3}),
		Index: device.Contiguous(bad, i32, 0, []int{2}), Src: device.Contiguous(src, f32, 0, []int{2})}))
	err = d.Sync()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cuda: scatter: index -7 out of range [0,3) along axis 0 (Dst shape [3]")
	assert.Equal(t, []float64{0, 1, 0}, gputest.Download(t, d, dst, f32, 0, 3), "only the index in range adds")

	require.NoError(t, gather([]int{1, 6}, bad))
	for i := 0; i < maxIndexCalls; i++ {
		require.NoError(t, gather([]int{2, 3}, good))
	}
	err = d.Sync()
	require.Error(t, err, "the first call's error outlives its tag")
	assert.Contains(t, err.Error(), "index -7 out of range [0,6)")
	require.NoError(t, d.Sync())
}
