package data

import (
	"fmt"
	"iter"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"github.com/shaderflow/shaderflow/internal/workpool"
)

// LoaderConfig configures a DataLoader.
type LoaderConfig struct {
	// BatchSize is the number of samples per batch; it must be positive.
	BatchSize int
	// Shuffle visits samples in a fresh random order each epoch. The order
	// depends only on Seed and the epoch number, so a run can be reproduced
	// or resumed at any epoch.
	Shuffle bool
	// Seed selects the shuffling sequence.
	Seed uint64
	// DropLast skips the final batch when it would be smaller than
	// BatchSize.
	DropLast bool
}

// Batch is one mini-batch. X holds Shape[0] samples one after another
// (Shape is [batch, sample shape...]) and Y their labels.
//
// The slices are read-only and valid only until the iteration advances: a
// shuffled epoch gathers samples into two buffers that the DataLoader reuses
// in turn (the next batch is gathered in the background while the consumer
// works on the current one), and a sequential epoch hands out windows of the
// Dataset itself (no copy at all). A consumer that keeps a batch, or wants
// to modify it, must copy it.
type Batch struct {
	// Index is the batch's position within its epoch, from 0.
	Index int
	X     []float32
	Shape []int
	Y     []int32
}

// DataLoader cuts a Dataset into mini-batches. One DataLoader runs one
// iteration at a time (its buffers are shared); use one loader per goroutine.
type DataLoader struct {
	ds    *Dataset
	cfg   LoaderConfig
	perm  []int32
	x     [2][]float32 // a shuffled epoch's batch buffers, used in turn
	y     [2][]int32
	shape []int
}

// NewDataLoader returns a loader over ds. It panics if cfg.BatchSize is not
// positive or ds has more samples than an int32 index can address.
func NewDataLoader(ds *Dataset, cfg LoaderConfig) *DataLoader {
	if cfg.BatchSize <= 0 {
		panic(fmt.Sprintf("data: NewDataLoader: batch size %d, want > 0", cfg.BatchSize))
	}
	if int64(ds.Len()) > 1<<31-1 {
		panic(fmt.Sprintf("data: NewDataLoader: %d samples exceed the int32 index range", ds.Len()))
	}
	l := &DataLoader{ds: ds, cfg: cfg, shape: append([]int{0}, ds.Shape...)}
	if cfg.Shuffle {
		b := min(cfg.BatchSize, ds.Len())
		l.perm = make([]int32, ds.Len())
		for i := range l.x {
			l.x[i] = make([]float32, b*ds.SampleSize())
			l.y[i] = make([]int32, b)
		}
	}
	return l
}

// Config returns the loader's configuration.
func (l *DataLoader) Config() LoaderConfig { return l.cfg }

// NumBatches returns the number of batches in one epoch.
func (l *DataLoader) NumBatches() int {
	n, b := l.ds.Len(), l.cfg.BatchSize
	if l.cfg.DropLast {
		return n / b
	}
	return (n + b - 1) / b
}

// Epoch returns the batches of epoch number epoch, for use as
//
//	for b := range loader.Epoch(epoch) { ... }
//
// The batches' slices are reused from one batch to the next (see Batch).
func (l *DataLoader) Epoch(epoch int) iter.Seq[Batch] {
	return func(yield func(Batch) bool) {
		if l.cfg.Shuffle {
			l.shuffle(epoch)
			l.shuffled(yield)
			return
		}
		ss, bs := l.ds.SampleSize(), l.cfg.BatchSize
		for i := range l.NumBatches() {
			lo, hi := i*bs, min((i+1)*bs, l.ds.Len())
			l.shape[0] = hi - lo
			if !yield(Batch{Index: i, X: l.ds.X[lo*ss : hi*ss : hi*ss], Shape: l.shape, Y: l.ds.Y[lo:hi:hi]}) {
				return
			}
		}
	}
}

// shuffled yields the batches of the current permutation, gathering batch
// i+1 into the other buffer in the background while the consumer works on
// batch i.
func (l *DataLoader) shuffled(yield func(Batch) bool) {
	ss, bs, n := l.ds.SampleSize(), l.cfg.BatchSize, l.NumBatches()
	samples := func(i int) []int32 { return l.perm[i*bs : min((i+1)*bs, l.ds.Len())] }
	l.gather(0, samples(0))
	for i := range n {
		var next *gatherJob
		if i+1 < n {
			next = l.gatherLater((i+1)%2, samples(i+1))
		}
		idx := samples(i)
		l.shape[0] = len(idx)
		more := yield(Batch{Index: i, X: l.x[i%2][:len(idx)*ss], Shape: l.shape, Y: l.y[i%2][:len(idx)]})
		if next != nil {
			next.finish(more)
		}
		if !more {
			return
		}
	}
}

// gatherJob is a batch to gather in the background: by a helper goroutine of
// internal/workpool (the helpers that the CPU backend's kernels share), or
// by the consumer when no helper has started it by the time it is needed.
// A helper idle between kernels picks it up at once, so the gather overlaps
// the consumer's serial work; a goroutine started per batch instead was
// queued behind the consumer on its processor and, on two cores, ran only
// when the consumer blocked, that is in series with it.
type gatherJob struct {
	l     *DataLoader
	buf   int
	idx   []int32
	taken atomic.Bool   // a goroutine has started the gather
	done  chan struct{} // closed when a helper has finished it
}

// gatherLater returns the gather of samples idx into buffer buf, offered to
// a helper when there is more than one processor.
func (l *DataLoader) gatherLater(buf int, idx []int32) *gatherJob {
	g := &gatherJob{l: l, buf: buf, idx: idx, done: make(chan struct{})}
	if runtime.GOMAXPROCS(0) > 1 {
		workpool.Offer(g, 1)
	}
	return g
}

// Join runs the gather on a helper unless it was already taken.
func (g *gatherJob) Join() {
	if g.taken.CompareAndSwap(false, true) {
		g.l.gather(g.buf, g.idx)
		close(g.done)
	}
}

// finish returns once no goroutine is writing the batch: at once, after
// gathering it here if no helper took it (only when need is true), or after
// the helper that took it is done.
func (g *gatherJob) finish(need bool) {
	if g.taken.CompareAndSwap(false, true) {
		if need {
			g.l.gather(g.buf, g.idx)
		}
		return
	}
	<-g.done
}

// gather copies the samples idx into batch buffer buf.
func (l *DataLoader) gather(buf int, idx []int32) {
	ss := l.ds.SampleSize()
	x, y := l.x[buf], l.y[buf]
	for j, s := range idx {
		copy(x[j*ss:(j+1)*ss], l.ds.X[int(s)*ss:])
		y[j] = l.ds.Y[s]
	}
}

// shuffle fills l.perm with the sample order of an epoch: a Fisher-Yates
// shuffle of the identity driven by a PCG generator seeded with (Seed,
// epoch). The shuffle is written out here rather than taken from
// math/rand/v2 so that the order stays the same across Go releases.
func (l *DataLoader) shuffle(epoch int) {
	for i := range l.perm {
		l.perm[i] = int32(i)
	}
	rng := rand.NewPCG(l.cfg.Seed, uint64(epoch))
	for i := len(l.perm) - 1; i > 0; i-- {
		j := boundedRand(rng, uint64(i)+1)
		l.perm[i], l.perm[j] = l.perm[j], l.perm[i]
	}
}

// boundedRand returns a uniform integer in [0, n) by Lemire's
// multiply-and-reject method.
func boundedRand(rng *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(rng.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(rng.Uint64(), n)
		}
	}
	return hi
}
