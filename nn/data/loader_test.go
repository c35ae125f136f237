package data

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// indexedDataset returns n samples of shape [2, 3] whose values encode the
// sample index (value k of sample i is i*10+k) and whose label is i mod 7.
func indexedDataset(n int) *Dataset {
	ds := &Dataset{X: make([]float32, n*6), Shape: []int{2, 3}, Y: make([]int32, n), NumClasses: 7}
	for i := range n {
		for k := range 6 {
			ds.X[i*6+k] = float32(i*10 + k)
		}
		ds.Y[i] = int32(i % 7)
	}
	return ds
}

// collect runs one epoch and returns the sample indices in visiting order,
// checking every batch's shape, labels and values on the way.
func collect(t *testing.T, l *DataLoader, epoch int) []int {
	t.Helper()
	var order []int
	cfg, nb := l.Config(), 0
	for b := range l.Epoch(epoch) {
		require.Equal(t, nb, b.Index)
		nb++
		n := b.Shape[0]
		require.Equal(t, []int{n, 2, 3}, b.Shape)
		require.Len(t, b.X, n*6)
		require.Len(t, b.Y, n)
		if b.Index < l.NumBatches()-1 || cfg.DropLast {
			require.Equal(t, cfg.BatchSize, n)
		}
		for j := range n {
			i := int(b.X[j*6]) / 10
			for k := range 6 {
				require.Equal(t, float32(i*10+k), b.X[j*6+k], "batch %d sample %d value %d", b.Index, j, k)
			}
			require.Equal(t, int32(i%7), b.Y[j])
			order = append(order, i)
		}
	}
	require.Equal(t, l.NumBatches(), nb)
	return order
}

func TestDataLoaderSequential(t *testing.T) {
	for _, c := range []struct{ n, bs, batches, seen int }{
		{10, 3, 4, 10}, {9, 3, 3, 9}, {2, 5, 1, 2}, {0, 4, 0, 0},
	} {
		l := NewDataLoader(indexedDataset(c.n), LoaderConfig{BatchSize: c.bs})
		assert.Equal(t, c.batches, l.NumBatches())
		order := collect(t, l, 0)
		require.Len(t, order, c.seen)
		for i, s := range order {
			require.Equal(t, i, s)
		}
	}
}

func TestDataLoaderDropLast(t *testing.T) {
	for _, c := range []struct{ n, bs, batches int }{{10, 3, 3}, {9, 3, 3}, {2, 5, 0}} {
		l := NewDataLoader(indexedDataset(c.n), LoaderConfig{BatchSize: c.bs, DropLast: true, Shuffle: true, Seed: 3})
		assert.Equal(t, c.batches, l.NumBatches())
		assert.Len(t, collect(t, l, 0), c.batches*c.bs)
	}
}

func TestDataLoaderShuffle(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	const n = 101
	l := NewDataLoader(indexedDataset(n), LoaderConfig{BatchSize: 8, Shuffle: true, Seed: seed})
	e0, e1 := collect(t, l, 0), collect(t, l, 1)
	for _, order := range [][]int{e0, e1} { // a permutation of all samples
		seen := make([]bool, n)
		for _, i := range order {
			require.False(t, seen[i], "sample %d twice", i)
			seen[i] = true
		}
		require.Len(t, order, n)
	}
	assert.NotEqual(t, e0, e1, "epochs 0 and 1 have the same order")
	assert.Equal(t, e1, collect(t, l, 1), "epoch 1 not reproducible")
	assert.Equal(t, e0, collect(t, l, 0), "epoch 0 not reproducible after epoch 1")
	other := NewDataLoader(indexedDataset(n), LoaderConfig{BatchSize: 5, Shuffle: true, Seed: seed})
	assert.Equal(t, e1, collect(t, other, 1), "order depends on batch size or loader")
	reseeded := NewDataLoader(indexedDataset(n), LoaderConfig{BatchSize: 8, Shuffle: true, Seed: seed + 1})
	assert.NotEqual(t, e0, collect(t, reseeded, 0))
}

// The shuffle order is part of reproducibility across Go releases: pin it
// (the expected order was recorded from this implementation).
func TestDataLoaderShuffleGolden(t *testing.T) {
	l := NewDataLoader(indexedDataset(12), LoaderConfig{BatchSize: 12, Shuffle: true, Seed: 42})
	assert.Equal(t, []int{7, 3, 6, 1, 2, 0, 4, 9, 11, 10, 5, 8}, collect(t, l, 7))
}

// Every permutation of three samples must come out about equally often.
func TestDataLoaderShuffleUniform(t *testing.T) {
	l := NewDataLoader(indexedDataset(3), LoaderConfig{BatchSize: 3, Shuffle: true, Seed: 9})
	counts := map[[3]int]int{}
	const epochs = 6000
	for e := range epochs {
		l.shuffle(e)
		counts[[3]int{int(l.perm[0]), int(l.perm[1]), int(l.perm[2])}]++
	}
	require.Len(t, counts, 6)
	for p, c := range counts { // expected 1000, sd about 29
		assert.InDelta(t, epochs/6, c, 150, "permutation %v", p)
	}
}

func TestDataLoaderBreakAndReuse(t *testing.T) {
	ds := indexedDataset(20)
	l := NewDataLoader(ds, LoaderConfig{BatchSize: 4, Shuffle: true})
	var first []float32
	for b := range l.Epoch(0) {
		first = b.X
		break
	}
	var bufs [2]*float32
	for b := range l.Epoch(0) {
		if b.Index < 2 {
			bufs[b.Index] = &b.X[0]
		}
		assert.Same(t, bufs[b.Index%2], &b.X[0], "the two buffers are used in turn")
	}
	assert.Same(t, &first[0], bufs[0], "buffers are reused across epochs")
	assert.NotSame(t, bufs[0], bufs[1], "the next batch is gathered into the other buffer")
	seq := NewDataLoader(ds, LoaderConfig{BatchSize: 4})
	for b := range seq.Epoch(0) {
		assert.Same(t, &ds.X[b.Index*4*6], &b.X[0], "sequential batches alias the dataset")
		assert.Equal(t, len(b.X), cap(b.X), "appending to a batch must not write into the dataset")
	}
}

func TestNewDataLoaderPanics(t *testing.T) {
	assert.PanicsWithValue(t, "data: NewDataLoader: batch size 0, want > 0", func() {
		NewDataLoader(indexedDataset(3), LoaderConfig{})
	})
}

func TestBoundedRand(t *testing.T) {
	rng := rand.NewPCG(1, 2)
	for _, n := range []uint64{1, 2, 3, 1<<63 + 1, ^uint64(0)} {
		for range 100 {
			require.Less(t, boundedRand(rng, n), n)
		}
	}
}

// TestDataLoaderGatherWithoutHelpers checks that a shuffled epoch yields the
// same batches when the consumer gathers every batch itself (one processor:
// nothing is handed to helpers) as when helpers gather them in the background.
func TestDataLoaderGatherWithoutHelpers(t *testing.T) {
	l := NewDataLoader(indexedDataset(301), LoaderConfig{BatchSize: 16, Shuffle: true, Seed: 9})
	background := collect(t, l, 3)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	require.Equal(t, background, collect(t, l, 3))
}
