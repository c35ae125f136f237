//go:build cgo

package vulkan

import (
	"hash/maphash"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// newRand returns a generator with a fresh seed, which it logs.
func newRand(t *testing.T) *rand.Rand {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 1))
}

// randFloats returns n normally distributed float32s.
func randFloats(r *rand.Rand, n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(r.NormFloat64())
	}
	return xs
}

// negated returns -x elementwise.
func negated(xs []float32) []float32 {
	out := make([]float32, len(xs))
	for i, x := range xs {
		out[i] = -x
	}
	return out
}

func TestDescriptorCacheHits(t *testing.T) {
	d := openDevice(t)
	if d.descMode != descCache {
		t.Skipf("descriptors are %s", d.descMode)
	}
	r := newRand(t)
	n := 300
	x := upload(t, d, f32Bytes(randFloats(r, n)))
	o := alloc(t, d, int64(4*n))
	k := unaryKernel(x, o, n, device.OpNeg)
	require.NoError(t, d.Elementwise(k))
	before := d.Stats()
	for i := 0; i < 3*maxBatchDispatches; i++ { // several batches
		require.NoError(t, d.Elementwise(k))
	}
	require.NoError(t, d.Sync())
	after := d.Stats()
	assert.Equal(t, before.DescriptorMisses, after.DescriptorMisses, "the same bindings reuse their set")
	assert.Equal(t, before.DescriptorHits+3*maxBatchDispatches, after.DescriptorHits)
	assert.Equal(t, before.CachedSets, after.CachedSets)
	assert.Equal(t, before.DescriptorFresh, after.DescriptorFresh)
}

// TestDescriptorCacheInvalidation frees a buffer (idle, then still in use by
// recorded work) and allocates one of the same size, which the driver may
// give the freed buffer's handle: kernels on the new buffer must see the new
// buffer's data, and the sets of the freed buffer must leave the cache.
func TestDescriptorCacheInvalidation(t *testing.T) {
	d, r := openDevice(t), newRand(t)
	n := 513
	o, o2 := alloc(t, d, int64(4*n)), alloc(t, d, int64(4*n))
	reused := 0
	for round, pending := range []bool{false, true, false, true} {
		xs := randFloats(r, n)
		x := upload(t, d, f32Bytes(xs))
		require.NoError(t, d.Elementwise(unaryKernel(x, o, n, device.OpNeg)))
		require.NoError(t, d.Elementwise(unaryKernel(x, o2, n, device.OpNeg)))
		require.NoError(t, d.Elementwise(unaryKernel(o2, x, n, device.OpNeg)))
		if d.descMode == descCache {
			assert.Equal(t, 3, x.(*Buffer).nsets, "round %d", round)
		}
		if !pending {
			require.NoError(t, d.Sync())
		}
		handle := x.(*Buffer).raw.buf
		d.Free(x) // with pending set, the batch frees it when it completes
		require.NoError(t, d.Sync())
		assert.Zero(t, x.(*Buffer).nsets, "round %d: the freed buffer's sets are dropped", round)

		ys := randFloats(r, n)
		y := upload(t, d, f32Bytes(ys))
		if y.(*Buffer).raw.buf == handle {
			reused++
		}
		require.NoError(t, d.Elementwise(unaryKernel(y, o, n, device.OpNeg)))
		assert.Equal(t, negated(ys), bytesF32(download(t, d, o, 4*n)), "round %d", round)
		assert.Equal(t, negated(xs), bytesF32(download(t, d, o2, 4*n)), "round %d", round)
		d.Free(y)
	}
	t.Logf("the driver reused the freed buffer's handle in %d of 4 rounds", reused)
	require.NoError(t, d.Sync())
	if d.descMode == descCache {
		assert.Equal(t, 0, d.Stats().CachedSets, "only the sets of live buffers stay")
	}
}

// TestDescriptorCacheNoGrowth runs 10 000 iterations of allocate, kernel,
// free (a new set each time) and of a kernel on the same buffers (a cached
// set): the cache, its spare sets and the device's allocations stay flat.
func TestDescriptorCacheNoGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("long loop")
	}
	d, r := openDevice(t), newRand(t)
	n := 64
	xs := randFloats(r, n)
	o, p := alloc(t, d, int64(4*n)), alloc(t, d, int64(4*n))
	require.NoError(t, d.Sync())
	mem := d.memCount
	for i := 0; i < 10000; i++ {
		d.sets.hitRate = 1 // admit every miss: every iteration writes a set and drops it
		x := upload(t, d, f32Bytes(xs))
		require.NoError(t, d.Elementwise(unaryKernel(x, o, n, device.OpNeg)))
		require.NoError(t, d.Elementwise(unaryKernel(o, p, n, device.OpNeg)))
		d.Free(x)
		if i%1000 == 999 {
			require.NoError(t, d.Sync())
			assert.LessOrEqual(t, d.sets.Len(), 2, "iteration %d", i)
			assert.LessOrEqual(t, d.sets.allocated, numBatches*maxBatchDispatches+1, "iteration %d: spare sets are reused", i)
			assert.LessOrEqual(t, len(d.sets.spare), d.sets.allocated, "iteration %d", i)
			assert.Equal(t, mem, d.memCount, "iteration %d", i)
		}
	}
	assert.Equal(t, xs, bytesF32(download(t, d, p, 4*n)))
	s := d.Stats()
	t.Logf("stats %+v, sets allocated %d", s, d.sets.allocated)
	if d.descMode == descCache {
		assert.GreaterOrEqual(t, s.DescriptorHits, uint64(9999))
		assert.Zero(t, s.DescriptorFresh)
	}
}

// TestDescriptorCacheAdmission: bindings that never repeat stop filling the
// cache (one miss in admitEvery still does), and repeating ones fill it
// again.
func TestDescriptorCacheAdmission(t *testing.T) {
	d := openDevice(t)
	if d.descMode != descCache {
		t.Skipf("descriptors are %s", d.descMode)
	}
	const bufs, n = 30, 16
	ins, outs := make([]device.Buffer, bufs), make([]device.Buffer, bufs)
	for i := range ins {
		ins[i], outs[i] = alloc(t, d, 4*n), alloc(t, d, 4*n)
	}
	before := d.Stats()
	for i := range bufs * bufs { // every pair once: all misses
		require.NoError(t, d.Elementwise(unaryKernel(ins[i/bufs], outs[i%bufs], n, device.OpNeg)))
	}
	s := d.Stats()
	misses, fresh := s.DescriptorMisses-before.DescriptorMisses, s.DescriptorFresh-before.DescriptorFresh
	assert.Equal(t, uint64(bufs*bufs), misses)
	assert.Less(t, d.sets.hitRate, admitRate)
	written := misses - fresh
	assert.Less(t, written, uint64(hitWindow+bufs*bufs/admitEvery+1), "most misses take fresh sets")
	assert.Greater(t, written, uint64(bufs*bufs/admitEvery-1), "one miss in %d is still cached", admitEvery)

	k := unaryKernel(ins[0], outs[0], n, device.OpNeg)
	for range 2 * hitWindow { // repeating bindings: hits raise the rate again
		require.NoError(t, d.Elementwise(k))
	}
	assert.GreaterOrEqual(t, d.sets.hitRate, admitRate)
	require.NoError(t, d.Sync())
}

// TestDescriptorCacheEviction binds more distinct buffer pairs than the cache
// holds, several batches of them pending at once: the least recently used
// idle sets are rewritten and every result is right.
func TestDescriptorCacheEviction(t *testing.T) {
	d, r := openDevice(t), newRand(t)
	const bufs, n = 36, 40 // 36*36 pairs > setCacheSize
	ins, outs := make([]device.Buffer, bufs), make([]device.Buffer, bufs)
	vals := make([][]float32, bufs)
	for i := range ins {
		vals[i] = randFloats(r, n)
		ins[i] = upload(t, d, f32Bytes(vals[i]))
		outs[i] = alloc(t, d, int64(4*n))
	}
	last := make([]int, bufs)
	for i := range bufs {
		for j := range bufs {
			d.sets.hitRate = 1 // admit every miss
			require.NoError(t, d.Elementwise(unaryKernel(ins[i], outs[j], n, device.OpNeg)))
			last[j] = i
		}
	}
	for j := range outs {
		assert.Equal(t, negated(vals[last[j]]), bytesF32(download(t, d, outs[j], 4*n)), "output %d", j)
	}
	if d.descMode == descCache {
		s := d.Stats()
		assert.Equal(t, setCacheSize, d.sets.allocated)
		assert.LessOrEqual(t, s.CachedSets, setCacheSize)
		t.Logf("stats %+v", s)
	}
}

// TestDescriptorModes runs dependent and independent kernels, staged writes
// and reads with every way of binding descriptors, and with cached sets
// falling back to fresh ones.
func TestDescriptorModes(t *testing.T) {
	for _, mode := range []string{"cache", "push", "fresh", "cache-fallback"} {
		t.Run(mode, func(t *testing.T) {
			env := mode
			if mode == "cache-fallback" {
				env = "cache"
			}
			t.Setenv(EnvDescriptors, env)
			d := openDevice(t)
			if mode == "push" && d.descMode != descPush {
				t.Skipf("the adapter lacks %s", pushExtension)
			}
			require.Equal(t, env, d.descMode.String())
			if mode == "cache-fallback" {
				d.paramsRange = 0 // every launch's params are larger
			}
			n := 1000
			xs := randFloats(newRand(t), n)
			x := upload(t, d, f32Bytes(xs))
			a, b := alloc(t, d, int64(4*n)), alloc(t, d, int64(4*n))
			src, dst := x, a
			for i := 0; i < 2*maxBatchDispatches+1; i++ { // odd count: -x
				require.NoError(t, d.Elementwise(unaryKernel(src, dst, n, device.OpNeg)))
				if i == 0 {
					src, dst = a, b
				} else {
					src, dst = dst, src
				}
				if i == 100 {
					require.NoError(t, d.Write(x, 0, f32Bytes(xs))) // a staged copy between kernels
				}
			}
			assert.Equal(t, negated(xs), bytesF32(download(t, d, src, 4*n)))
			s := d.Stats()
			switch mode {
			case "cache":
				assert.Zero(t, s.DescriptorFresh)
				assert.Positive(t, s.DescriptorHits)
			case "push":
				assert.Zero(t, s.DescriptorFresh+s.DescriptorHits+s.DescriptorMisses)
			default:
				assert.Zero(t, s.DescriptorHits+s.DescriptorMisses)
				assert.Positive(t, s.DescriptorFresh)
			}
		})
	}
}

func TestDescriptorModeFromEnvironment(t *testing.T) {
	d := openDevice(t)
	for env, want := range map[string]descriptorMode{"": descCache, " Cache ": descCache, "fresh": descFresh} {
		t.Setenv(EnvDescriptors, env)
		got, err := chooseDescriptors(d.ad, d.layoutBindings)
		require.NoError(t, err)
		assert.Equal(t, want, got, "%q", env)
	}
	t.Setenv(EnvDescriptors, "bogus")
	_, err := chooseDescriptors(d.ad, d.layoutBindings)
	assert.ErrorContains(t, err, EnvDescriptors)
	t.Setenv(EnvDescriptors, "push")
	got, err := chooseDescriptors(d.ad, 1<<20) // no adapter pushes a million
	require.NoError(t, err)
	assert.Equal(t, descCache, got, "push falls back to cache")
}

// TestDescriptorCacheHashCollision: a key whose hash names another key's
// entry is not cached (the dispatch takes a fresh set) and leaves the other
// entry alone.
func TestDescriptorCacheHashCollision(t *testing.T) {
	d := openDevice(t)
	if d.descMode != descCache {
		t.Skipf("descriptors are %s", d.descMode)
	}
	var k1, k2 setKey
	k1[0].id, k2[0].id = 1, 2
	h2 := maphash.Bytes(d.sets.seed, unsafe.Slice((*byte)(unsafe.Pointer(&k2)), unsafe.Sizeof(k2)))
	other := &setEntry{key: k1, hash: h2}
	d.sets.entries[h2] = other
	defer delete(d.sets.entries, h2)
	d.args.write = 0
	_, ok, err := d.cachedSet(&k2, nil, d.seq)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Same(t, other, d.sets.entries[h2])
	assert.Zero(t, d.args.write)
}
