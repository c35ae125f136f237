package conformance

import (
	"math"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// flatIterations is how many scoped steps must hold the pool flat.
const flatIterations = 10_000

// settle collects the garbage of earlier cases until the pool's bytes in
// use hold still: tensors left unreleased are returned by runtime cleanups
// that run after a collection, and must not do so while a case measures.
// What is still pending after that can only lower the figure, which is why
// the flat-pool case checks that the bytes in use never grow.
func settle(e *env) {
	last := e.dev.PoolStats().BytesInUse
	for range 20 {
		runtime.GC()
		time.Sleep(time.Millisecond)
		now := e.dev.PoolStats().BytesInUse
		if now == last {
			return
		}
		last = now
	}
}

func memoryCases() []testCase {
	return []testCase{
		{name: "pool_flat_10000_scoped_steps", run: func(e *env) {
			x, y, b := e.randn(16, 8), e.randn(8, 8), e.randn(8)
			want := ref.Sum(ref.Relu(ref.Add(ref.MatMul(x.R, y.R), b.R)), false).Item()
			step := func(check bool) {
				e.dev.Scope(func() {
					h := x.T.MatMul(y.T).Add(b.T).Relu()
					s := h.Sum().MulScalar(0.5).AddScalar(1)
					if !check {
						e.noErr(s.Realize(), "step")
						return
					}
					v, err := s.Item()
					e.noErr(err, "step")
					if w := 0.5*want + 1; math.Abs(v-w) > 1e-4*(1+math.Abs(w)) {
						e.fatalf("step value %v, want %v", v, w)
					}
				})
			}
			for range 10 { // warm the pool's cache
				step(true)
			}
			settle(e)
			before := e.dev.PoolStats()
			for i := range flatIterations {
				step(i%1000 == 0)
				if i == flatIterations/2 {
					mid := e.dev.PoolStats()
					if mid.BytesInUse > before.BytesInUse || mid.ReservedBytes != before.ReservedBytes {
						e.fatalf("pool grew by step %d: in use %d -> %d bytes, reserved %d -> %d", i, before.BytesInUse, mid.BytesInUse, before.ReservedBytes, mid.ReservedBytes)
					}
				}
			}
			after := e.dev.PoolStats()
			if after.BytesInUse > before.BytesInUse {
				e.errorf("bytes in use %d before %d scoped steps, %d after", before.BytesInUse, flatIterations, after.BytesInUse)
			}
			if after.ReservedBytes != before.ReservedBytes {
				e.errorf("reserved bytes %d before %d scoped steps, %d after", before.ReservedBytes, flatIterations, after.ReservedBytes)
			}
			if after.Reuses <= before.Reuses {
				e.errorf("the pool reused no block over %d steps (reuses %d -> %d)", flatIterations, before.Reuses, after.Reuses)
			}
		}},
		{name: "pool_bounded_unscoped_loop", run: unscopedLoop},
		{name: "scope_releases", run: func(e *env) {
			before := e.dev.PoolStats().BytesInUse
			var kept *tensor.Tensor
			e.dev.Scope(func() {
				a := e.randn(64, 64)
				kept = a.T.Exp().Keep()
				e.noErr(kept.Realize(), "Realize")
				e.noErr(a.T.Neg().Realize(), "Realize")
			})
			during := e.dev.PoolStats().BytesInUse
			if during <= before {
				e.errorf("a kept 64x64 result holds no pool memory (%d -> %d bytes)", before, during)
			}
			kept.Release()
			if after := e.dev.PoolStats().BytesInUse; after != before {
				e.errorf("bytes in use %d before the scope, %d after it and releasing the kept tensor", before, after)
			}
		}},
	}
}

// unscopedLoop runs 200 steps that never release their 4 MB results, with
// the garbage collector's own pacing off (device memory is not Go heap, so
// on a GPU nothing else would prompt a collection), and checks that the
// pool's reserved bytes grow within the reclaimer's bound: the live set
// plus tensor.MaxReclaimGrowth times the larger of it and the 64 MiB floor,
// and one result, where keeping every result
// would take 800 MB. Every tenth result stays reachable and must keep its
// values. Keep takes each result out of the case's scope, so that nothing
// but the garbage collector and the reclaimer releases the others.
func unscopedLoop(e *env) {
	const n, steps = 1 << 20, 200
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	a := e.randn(n)
	e.noErr(a.T.Realize(), "Realize")
	settle(e)
	before := e.dev.PoolStats()
	held := before.BytesInUse // a, and what earlier cases still hold
	kept := map[int]*tensor.Tensor{}
	var peak int64
	for i := range steps {
		c := a.T.MulScalar(float64(i)).Keep()
		e.noErr(c.Realize(), "Realize")
		if i%10 == 0 {
			kept[i] = c
		}
		peak = max(peak, e.dev.PoolStats().ReservedBytes)
	}
	live := held + int64(len(kept))*4*n
	if grew, bound := peak-before.ReservedBytes, live+tensor.MaxReclaimGrowth*max(live, 64<<20)+4*n; grew > bound {
		e.errorf("%d unscoped steps reserved up to %d more bytes, more than %d (the %d live bytes, %d times the larger of them and the 64 MiB floor, and one result)",
			steps, grew, bound, live, tensor.MaxReclaimGrowth)
	}
	want := a.R.Values()
	for i, c := range kept {
		got, err := c.Float32s()
		e.noErr(err, "Float32s")
		for j := 0; j < n; j += 4099 {
			if w := want[j] * float64(i); math.Abs(float64(got[j])-w) > 1e-5*(1+math.Abs(w)) {
				e.fatalf("step %d's kept result [%d] = %v, want %v", i, j, got[j], w)
			}
		}
		c.Release()
	}
	// Return the garbage of the loop now, while no later case measures.
	settle(e)
}
