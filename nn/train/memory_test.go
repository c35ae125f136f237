package train_test

import (
	"runtime"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// TestTrainingMemoryIsFlat trains a tiny model (with BatchNorm buffers,
// Dropout and momentum state) for 10 000 steps on synthetic data and checks
// that the pool's bytes in use and reserved bytes do not move after the
// first steps, and that the Go heap (the lazy graph's nodes, autograd
// records) does not grow either.
func TestTrainingMemoryIsFlat(t *testing.T) {
	steps := 10000
	if testing.Short() {
		steps = 2000
	}
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		steps := steps
		if dev.Info().Kind == device.KindSoftwareGPU {
			// A GPU emulated on the CPU runs each step's ~40 kernels at
			// software speed: 1000 steps (900 after warm-up) still show
			// that memory stays flat, within CI's time.
			steps = min(steps, 1000)
		}
		r := nntest.Rand(t)
		g := nn.WithGenerator(tensor.NewGenerator(3))
		m := nn.NewSequential(
			nn.NewLinear(dev, 8, 16, g), nn.NewBatchNorm1d(dev, 16), nn.NewReLU(),
			nn.NewDropout(0.1), nn.NewLinear(dev, 16, 4, g),
		)
		opt := optim.NewSGD(nn.Parameters(m), optim.SGDConfig{LR: 0.01, Momentum: 0.9})
		tr := train.NewTrainer(dev, m, opt)
		const batches = 16
		xs := make([][]float32, batches)
		ys := make([][]int32, batches)
		for i := range xs {
			xs[i] = nntest.Normal(r, 4*8)
			ys[i] = []int32{int32(r.IntN(4)), int32(r.IntN(4)), int32(r.IntN(4)), int32(r.IntN(4))}
		}
		// After warm-up, device memory (the pool's reserved bytes) must not
		// move, and the bytes in use must never exceed what warm-up needed.
		// (In use may dip: when a backend's binding limit makes the
		// scheduler materialize an intermediate, which intermediates are
		// alive at the moment of measuring differs between steps.)
		const warm = 100
		var inUse, reserved int64
		var live int
		var heapWarm uint64
		for step := range steps {
			require.NoError(t, tr.Step(xs[step%batches], []int{4, 8}, ys[step%batches]))
			st := dev.PoolStats()
			if step == steps/2 {
				// The GPU backends' caches (pipelines, descriptor sets) fill
				// over the first few hundred steps; by half-way they are full.
				heapWarm = liveHeap()
			}
			switch {
			case step <= warm:
				inUse, reserved, live = max(inUse, st.BytesInUse), st.ReservedBytes, max(live, st.LiveBlocks)
			case st.BytesInUse > inUse || st.ReservedBytes != reserved || st.LiveBlocks > live:
				t.Fatalf("step %d: %d bytes in %d blocks in use and %d reserved; by step %d at most %d in %d blocks and %d",
					step, st.BytesInUse, st.LiveBlocks, st.ReservedBytes, warm, inUse, live, reserved)
			}
		}
		// A step allocates tens of host objects; were any of them kept (a
		// graph node reachable from a parameter's history, say), thousands
		// of steps would add megabytes.
		heapEnd := liveHeap()
		require.Less(t, heapEnd, heapWarm+1<<20, "Go heap grew from %d to %d bytes over %d steps", heapWarm, heapEnd, steps-steps/2)
		loss, err := tr.MeanLoss()
		require.NoError(t, err)
		t.Logf("%d steps: %d bytes in use in %d blocks, %d reserved; Go heap %d bytes half-way, %d at the end; mean loss %.3f",
			steps, inUse, live, reserved, heapWarm, heapEnd, loss)
		t.Log(dev.PoolStats())
	})
}

// liveHeap returns the bytes of live Go heap objects after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
