package data

import "testing"

// BenchmarkEpoch measures the loader's cost for one epoch of a
// Fashion-MNIST-sized dataset (60 000 samples of 1×28×28) at batch 64: the
// permutation plus copying every sample into the batch buffers when
// shuffled. The consumer does nothing, so this is pure loader cost. The
// "memcpy" case copies the same bytes in dataset order into a batch-sized
// buffer: the memory-bandwidth floor that a shuffled epoch cannot beat.
func BenchmarkEpoch(b *testing.B) {
	const n, ss = 60000, 28 * 28
	ds := &Dataset{X: make([]float32, n*ss), Shape: []int{1, 28, 28}, Y: make([]int32, n), NumClasses: 10}
	for i := range ds.X {
		ds.X[i] = float32(i % 255)
	}
	b.Run("memcpy", func(b *testing.B) {
		buf := make([]float32, 64*ss)
		b.SetBytes(int64(len(ds.X)) * 4)
		for b.Loop() {
			for i := 0; i < len(ds.X); i += len(buf) {
				copy(buf, ds.X[i:])
			}
		}
	})
	for _, shuffle := range []bool{false, true} {
		name := "sequential"
		if shuffle {
			name = "shuffled"
		}
		b.Run(name, func(b *testing.B) {
			l := NewDataLoader(ds, LoaderConfig{BatchSize: 64, Shuffle: shuffle, Seed: 1})
			b.SetBytes(int64(len(ds.X)) * 4)
			epoch := 0
			for b.Loop() {
				for range l.Epoch(epoch) {
				}
				epoch++
			}
		})
	}
}
