package gputest

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Binding-size cases of the kernels split over their batch (matmul, conv,
// pool) and the index tensor's leading dimensions (gather, scatter): sizes
// in float32 elements against LimitBindingBytes (1024 elements).

// batchBindingCases sit below and above the lowered binding size.
func batchBindingCases() []limitCase {
	g2 := func(n, c, o, groups int, in, k []int) device.ConvGeometry {
		one, zero := make([]int, len(in)), make([]int, len(in))
		for i := range one {
			one[i] = 1
		}
		return convGeom(n, c, o, groups, in, k, one, zero, one)
	}
	// 10 images of 2x8x8 (1280 elements; 128 an image), 3x3 kernels.
	conv := g2(10, 2, 3, 1, []int{8, 8}, []int{3, 3})
	grouped := g2(10, 4, 4, 2, []int{6, 6}, []int{3, 3})
	pool := convGeom(4, 3, 3, 3, []int{10, 10}, []int{2, 2}, []int{2, 2}, []int{0, 0}, []int{1, 1})
	cs := []limitCase{
		{"matmul batch 3 of 16x16x16 below", sumTol(16), matmulBuild([]int{3}, 16, 16, 16, Offset, Normal)},
		{"matmul batch 12 of 16x16x16", sumTol(16), matmulBuild([]int{12}, 16, 16, 16, Offset, Normal)},
		{"matmul batch 12 of 16x16x16, A broadcast", sumTol(16), matmulBuild([]int{12}, 16, 16, 16, Broadcast, Normal)},
		{"matmul batch [3,5] of 16x16x16", sumTol(16), matmulBuild([]int{3, 5}, 16, 16, 16, Strided, Normal)},
		{"matmul batch [3,5] of 8x16x8, random and index", Tol{Abs: 1e-5, Rel: 1e-5}, matmulPositionsBuild([]int{3, 5}, 8, 8, 16)},
		{"conv forward N=2 below", sumTol(18), convBuild(device.ConvForward, g2(2, 2, 3, 1, []int{8, 8}, []int{3, 3}), Offset, Normal)},
		{"conv forward N=10 positions", Tol{Abs: 1e-5, Rel: 1e-5}, convPositionsBuild(conv)},
	}
	for _, m := range []device.ConvMode{device.ConvForward, device.ConvBackwardInput, device.ConvBackwardWeight} {
		depth := 400 // backward-weight sums over the batch and the output
		if m != device.ConvBackwardWeight {
			depth = 36
		}
		cs = append(cs,
			limitCase{"conv mode " + convModeName(m) + " N=10", sumTol(depth), convBuild(m, conv, Strided, Normal)},
			limitCase{"conv grouped mode " + convModeName(m) + " N=10", sumTol(depth), convBuild(m, grouped, Offset, Normal)})
	}
	for _, op := range []device.PoolOp{device.PoolMax, device.PoolAvg} {
		name := [...]string{"max", "avg"}[op]
		cs = append(cs,
			limitCase{"pool " + name + " [4,3,10,10]", Tol{Abs: 1e-6, Rel: 1e-6}, poolBuild(op, false, pool, Offset)},
			limitCase{"adaptive pool " + name + " [4,3,10,10] to 3x4", Tol{Abs: 1e-6, Rel: 1e-6},
				poolBuild(op, true, device.ConvGeometry{N: 4, C: 3, O: 3, Groups: 3, In: []int{10, 10}, Out: []int{3, 4}}, Strided)})
	}
	return cs
}

// loopBindingCases split both over the batch (binding size lowered) and
// over the depth (loop limit lowered to LimitLoops: chunks of 256 depths).
func loopBindingCases() []limitCase {
	g1 := func(n, c, o int, in, k int) device.ConvGeometry {
		return convGeom(n, c, o, 1, []int{in}, []int{k}, []int{1}, []int{0}, []int{1})
	}
	return []limitCase{
		{"matmul batch 6 of 2x300x2", sumTol(300), matmulBuild([]int{6}, 2, 2, 300, Offset, Normal)},
		{"matmul batch [2,3] of 2x300x3, random and index", Tol{Abs: 1e-4, Rel: 1e-5}, matmulPositionsBuild([]int{2, 3}, 2, 3, 300)},
		{"conv forward N=4 depth 270", sumTol(270), convBuild(device.ConvForward, g1(4, 30, 2, 20, 9), Offset, Normal)},
		{"conv backward-input N=4 depth 270", sumTol(270), convBuild(device.ConvBackwardInput, g1(4, 2, 30, 20, 9), Offset, Normal)},
		{"conv backward-weight N=6 depth 6x298", sumTol(6 * 298), convBuild(device.ConvBackwardWeight, g1(6, 1, 1, 300, 3), Offset, Normal)},
	}
}

// convModeName names a convolution mode.
func convModeName(m device.ConvMode) string {
	return [...]string{"forward", "backward-input", "backward-weight"}[m]
}

// matmulPositionsBuild builds a product (A offset) whose epilogue adds a
// uniform random number and also outputs the position: each slab must
// see its position base.
func matmulPositionsBuild(batch []int, m, n, k int) func(*testing.T, device.Device, *rand.Rand) (func() error, []device.View) {
	return func(t *testing.T, d device.Device, rng *rand.Rand) (func() error, []device.View) {
		f32 := device.Float32
		a := Make(t, d, rng, f32, slices.Concat(batch, []int{m, k}), Offset, Normal(f32))
		b := Make(t, d, rng, f32, slices.Concat(batch, []int{k, n}), Contiguous, Normal(f32))
		res := slices.Concat(batch, []int{m, n})
		kk := &device.MatMulKernel{Batch: batch, M: m, N: n, K: k, A: a.View, B: b.View, Epilogue: positionsEpilogue(),
			Outputs: []device.View{Output(t, d, f32, 1, res), Output(t, d, device.Int32, 0, res)}}
		return func() error { return d.MatMul(kk) }, kk.Outputs
	}
}

// convPositionsBuild builds a forward convolution (X offset) with the
// epilogue of matmulPositionsBuild.
func convPositionsBuild(g device.ConvGeometry) func(*testing.T, device.Device, *rand.Rand) (func() error, []device.View) {
	return func(t *testing.T, d device.Device, rng *rand.Rand) (func() error, []device.View) {
		f32 := device.Float32
		xs := slices.Concat([]int{g.N, g.C}, g.In)
		ws := slices.Concat([]int{g.O, g.C / g.Groups}, g.Kernel)
		ys := slices.Concat([]int{g.N, g.O}, g.Out)
		k := &device.ConvKernel{Mode: device.ConvForward, Geom: g, Epilogue: positionsEpilogue(),
			A: Make(t, d, rng, f32, xs, Offset, Normal(f32)).View, B: Make(t, d, rng, f32, ws, Contiguous, Normal(f32)).View,
			Outputs: []device.View{Output(t, d, f32, 1, ys), Output(t, d, device.Int32, 0, ys)}}
		return func() error { return d.Conv(k) }, k.Outputs
	}
}

// positionsEpilogue outputs acc + a uniform random number and the position.
func positionsEpilogue() device.Program {
	f32 := device.Float32
	var e device.Builder
	e.Output(e.Binary(device.OpAdd, e.Input(0, f32), e.Rand(11, false)))
	e.Output(e.Index())
	return e.P
}

// batchBindingRefusals are kernels whose smallest slab still spans more
// than one binding: they must fail with the binding error.
func batchBindingRefusals() []limitCase {
	return []limitCase{
		{"matmul batch 12 of 16x16x16, A transposed over the batch", Exact, matmulBuild([]int{12}, 16, 16, 16, Reversed, Normal)},
		{"matmul of one 40x40x40", Exact, matmulBuild(nil, 40, 40, 40, Contiguous, Normal)},
		{"conv forward, X transposed over the batch", Exact, convBuild(device.ConvForward,
			convGeom(10, 2, 3, 1, []int{8, 8}, []int{3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}), Reversed, Normal)},
		{"conv backward-weight, one image of 1x1100", Exact, convBuild(device.ConvBackwardWeight,
			convGeom(2, 1, 1, 1, []int{1100}, []int{3}, []int{1}, []int{0}, []int{1}), Offset, Normal)},
		{"scatter axis 0 into a [40,30] Dst", Exact, scatterBuild(0, []int{40, 30}, []int{40, 20})},
		{"gather axis 1 from one row of 1100", Exact, gatherBuild(1, []int{2, 1100}, []int{2, 5})},
		{"pool of one 40x40 plane", Exact, poolBuild(device.PoolMax, false,
			convGeom(1, 1, 1, 1, []int{40, 40}, []int{2, 2}, []int{2, 2}, []int{0, 0}, []int{1, 1}), Contiguous)},
	}
}

// gatherBuild gathers along axis from a Src of srcShape (offset) with an
// index of idxShape (strided).
func gatherBuild(axis int, srcShape, idxShape []int) func(*testing.T, device.Device, *rand.Rand) (func() error, []device.View) {
	return func(t *testing.T, d device.Device, rng *rand.Rand) (func() error, []device.View) {
		f32 := device.Float32
		src := Make(t, d, rng, f32, srcShape, Offset, Normal(f32))
		ix := indexTensor(t, d, rng, idxShape, srcShape[axis], Strided)
		k := &device.GatherKernel{Axis: axis, Src: src.View, Index: ix.View, Out: Output(t, d, f32, 1, idxShape)}
		return func() error { return d.Gather(k) }, []device.View{k.Out}
	}
}

// scatterBuild scatter-adds a Src of idxShape along axis into a Dst of
// dstShape.
func scatterBuild(axis int, dstShape, idxShape []int) func(*testing.T, device.Device, *rand.Rand) (func() error, []device.View) {
	return func(t *testing.T, d device.Device, rng *rand.Rand) (func() error, []device.View) {
		f32 := device.Float32
		dst := Make(t, d, rng, f32, dstShape, Contiguous, Normal(f32))
		ix := indexTensor(t, d, rng, idxShape, dstShape[axis], Offset)
		src := Make(t, d, rng, f32, idxShape, Strided, Normal(f32))
		k := &device.ScatterKernel{Axis: axis, Dst: dst.View, Index: ix.View, Src: src.View}
		return func() error { return d.Scatter(k) }, []device.View{dst.View}
	}
}

// indexBindingCases gather and scatter below and above the lowered
// binding size: split with the data (axis 1) or binding it whole (axis 0).
func indexBindingCases() []limitCase {
	adds := Tol{Abs: 1e-5, Rel: 1e-5} // scatter-add order differs
	return []limitCase{
		{"gather axis 1 [10,20] below", Exact, gatherBuild(1, []int{10, 30}, []int{10, 20})},
		{"gather axis 1 [40,50] from [40,60]", Exact, gatherBuild(1, []int{40, 60}, []int{40, 50})},
		{"gather axis 2 [6,7,30] from [6,8,40]", Exact, gatherBuild(2, []int{6, 8, 40}, []int{6, 7, 30})},
		{"gather axis 0 [100,20] from [30,20]", Exact, gatherBuild(0, []int{30, 20}, []int{100, 20})},
		{"scatter axis 1 [40,20] into [40,30]", adds, scatterBuild(1, []int{40, 30}, []int{40, 20})},
		{"scatter axis 0 [100,20] into [10,20]", adds, scatterBuild(0, []int{10, 20}, []int{100, 20})},
	}
}
