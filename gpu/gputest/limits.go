package gputest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/shaderflow/shaderflow/cpu" // the reference backend
	"github.com/shaderflow/shaderflow/tensor/device"
)

// LimitLoops is the loop limit RunLimits lowers a device to: planners then
// keep data-dependent loops within 32 iterations, so that splits happen at
// sizes lavapipe runs in milliseconds.
const LimitLoops = 64

// limitCase builds a kernel on a device from a random source (the same
// values on every device for the same seed), and returns a function that
// runs it and the views it writes.
type limitCase struct {
	name  string
	tol   Tol
	build func(t *testing.T, d device.Device, r *rand.Rand) (run func() error, outs []device.View)
}

// RunLimits runs every kernel kind at sizes just below and above the limits
// its plan depends on, on d and on the CPU backend, and compares the
// results: with d's loop limit lowered to LimitLoops by setLoopLimit (-1
// restores the device's own), and, with realSizes, the reported real-size
// cases at the device's own limits (about a minute on lavapipe). A kernel
// may refuse a size with an error; it may never return a different value.
func RunLimits(t *testing.T, d device.Device, setLoopLimit func(int), realSizes bool) {
	cpu := Open(t, "cpu")
	seed := NewRand(t).Uint64()
	compare := func(t *testing.T, c limitCase) { compareCase(t, d, cpu, seed, c) }
	t.Run("Lowered", func(t *testing.T) {
		setLoopLimit(LimitLoops)
		defer setLoopLimit(-1)
		for _, c := range loweredCases() {
			t.Run(c.name, func(t *testing.T) { compare(t, c) })
		}
		testLoweredRefusals(t, d)
		t.Run("Softmax", func(t *testing.T) { testSoftmaxLoops(t, d) })
		t.Run("Normalize", func(t *testing.T) { testNormalizeLoops(t, d) })
	})
	if !realSizes {
		return
	}
	t.Run("Real", func(t *testing.T) {
		for _, c := range realCases() {
			t.Run(c.name, func(t *testing.T) { compare(t, c) })
		}
	})
}

// compareCase runs c on d and on the CPU backend with the same random
// source and compares every output.
func compareCase(t *testing.T, d, cpu device.Device, seed uint64, c limitCase) {
	var got [2][][]float64
	for i, dev := range []device.Device{d, cpu} {
		run, outs := c.build(t, dev, rand.New(rand.NewPCG(seed, 1)))
		require.NoError(t, run(), "%s on %s", c.name, dev.Info().Backend)
		for _, o := range outs {
			got[i] = append(got[i], Fetch(t, dev, o))
		}
	}
	for j := range got[0] {
		Check(t, fmt.Sprintf("%s: output %d (seed %d)", c.name, j, seed), got[0][j], got[1][j], c.tol)
	}
}

// sumTol is the tolerance of float32 sums of n terms of unit size.
func sumTol(n int) Tol { return Tol{Abs: 1e-6 * float64(n), Rel: 1e-5} }

// reduceBuild builds a reduction of a [o, r] input in layout l.
func reduceBuild(op device.ReduceOp, o, r int, l Layout, g func(device.DType) Gen) func(*testing.T, device.Device, *rand.Rand) (func() error, []device.View) {
	return func(t *testing.T, d device.Device, rng *rand.Rand) (func() error, []device.View) {
		f32 := device.Float32
		x := Make(t, d, rng, f32, []int{o, r}, l, g(f32))
		dt := f32
		if op == device.ReduceArgMax || op == device.ReduceArgMin {
			dt = device.Int32
		}
		k := &device.ReduceKernel{Op: op, OutShape: []int{o}, RedShape: []int{r}, Inputs: []device.View{x.View},
			Prologue: device.Identity(f32), Epilogue: device.Identity(dt)}
		k.Outputs = []device.View{Output(t, d, dt, 1, []int{o})}
		return func() error { return d.Reduce(k) }, k.Outputs
	}
}

// matmulBuild builds a product with a fused bias and ReLU.
func matmulBuild(batch []int, m, n, k int, la Layout, g func(device.DType) Gen) func(*testing.T, device.Device, *rand.Rand) (func() error, []device.View) {
	return func(t *testing.T, d device.Device, rng *rand.Rand) (func() error, []device.View) {
		f32 := device.Float32
		a := Make(t, d, rng, f32, slices.Concat(batch, []int{m, k}), la, g(f32))
		b := Make(t, d, rng, f32, slices.Concat(batch, []int{k, n}), Contiguous, g(f32))
		res := slices.Concat(batch, []int{m, n})
		bias := Make(t, d, rng, f32, res, Broadcast, Normal(f32))
		var e device.Builder
		e.Output(e.Unary(device.OpRelu, e.Binary(device.OpAdd, e.Input(0, f32), e.Input(1, f32))))
		e.Output(e.Input(0, f32))
		kk := &device.MatMulKernel{Batch: batch, M: m, N: n, K: k, A: a.View, B: b.View,
			EpilogueInputs: []device.View{bias.View}, Epilogue: e.P,
			Outputs: []device.View{Output(t, d, f32, 1, res), Output(t, d, f32, 0, res)}}
		return func() error { return d.MatMul(kk) }, kk.Outputs
	}
}

// convBuild builds a convolution of geometry g in a mode, X (the input
// or, backward-weight, B) in layout lx.
func convBuild(mode device.ConvMode, g device.ConvGeometry, lx Layout, gen func(device.DType) Gen) func(*testing.T, device.Device, *rand.Rand) (func() error, []device.View) {
	return func(t *testing.T, d device.Device, rng *rand.Rand) (func() error, []device.View) {
		f32 := device.Float32
		xs := slices.Concat([]int{g.N, g.C}, g.In)
		ws := slices.Concat([]int{g.O, g.C / g.Groups}, g.Kernel)
		ys := slices.Concat([]int{g.N, g.O}, g.Out)
		k := &device.ConvKernel{Mode: mode, Geom: g, Epilogue: device.Identity(f32)}
		switch mode {
		case device.ConvForward:
			k.A, k.B = Make(t, d, rng, f32, xs, lx, gen(f32)).View, Make(t, d, rng, f32, ws, Contiguous, gen(f32)).View
			k.Outputs = []device.View{Output(t, d, f32, 1, ys)}
		case device.ConvBackwardInput:
			k.A, k.B = Make(t, d, rng, f32, ys, Offset, gen(f32)).View, Make(t, d, rng, f32, ws, Contiguous, gen(f32)).View
			k.Outputs = []device.View{Output(t, d, f32, 1, xs)}
		default:
			k.A, k.B = Make(t, d, rng, f32, ys, Offset, gen(f32)).View, Make(t, d, rng, f32, xs, lx, gen(f32)).View
			k.Outputs = []device.View{Output(t, d, f32, 1, ws)}
		}
		return func() error { return d.Conv(k) }, k.Outputs
	}
}

// poolBuild builds a pooling and its backward pass, X in layout lx.
func poolBuild(op device.PoolOp, adaptive bool, g device.ConvGeometry, lx Layout) func(*testing.T, device.Device, *rand.Rand) (func() error, []device.View) {
	return func(t *testing.T, d device.Device, rng *rand.Rand) (func() error, []device.View) {
		f32 := device.Float32
		xs := slices.Concat([]int{g.N, g.C}, g.In)
		ys := slices.Concat([]int{g.N, g.C}, g.Out)
		x := Make(t, d, rng, f32, xs, lx, Normal(f32))
		dy := Make(t, d, rng, f32, ys, Offset, Normal(f32))
		k := &device.PoolKernel{Op: op, Adaptive: adaptive, Geom: g, X: x.View, Out: Output(t, d, f32, 1, ys)}
		if op == device.PoolMax {
			k.Indices = Output(t, d, device.Int32, 0, ys)
		}
		bk := &device.PoolKernel{Op: op, Backward: true, Adaptive: adaptive, Geom: g, X: dy.View, Out: Output(t, d, f32, 2, xs), Indices: k.Indices}
		run := func() error {
			if err := d.Pool(k); err != nil {
				return err
			}
			return d.Pool(bk)
		}
		return run, []device.View{k.Out, bk.Out}
	}
}

// indexBuild builds a gather, a scatter-add and a copy over 4-D strided
// views (their loops run over the rank, whatever the size).
func indexBuild(t *testing.T, d device.Device, rng *rand.Rand) (func() error, []device.View) {
	f32 := device.Float32
	shape := []int{3, 4, 5, 6}
	src := Make(t, d, rng, f32, shape, Reversed, Normal(f32))
	ix := indexTensor(t, d, rng, shape, shape[2], Strided)
	out := Output(t, d, f32, 1, shape)
	dst := Make(t, d, rng, f32, shape, Contiguous, Normal(f32))
	cp := Output(t, d, f32, 3, shape)
	var e device.Builder
	e.Output(e.Unary(device.OpExp, e.Input(0, f32)))
	ew := Output(t, d, f32, 2, shape)
	run := func() error {
		for _, err := range []error{
			d.Gather(&device.GatherKernel{Axis: 2, Src: src.View, Index: ix.View, Out: out}),
			d.Scatter(&device.ScatterKernel{Axis: 2, Dst: dst.View, Index: ix.View, Src: src.View}),
			d.Copy(&device.CopyKernel{Dst: cp, Src: src.View}),
			d.Elementwise(&device.ElementwiseKernel{Shape: shape, Inputs: []device.View{src.View}, Program: e.P, Outputs: []device.View{ew}}),
			d.Sync(),
		} {
			if err != nil {
				return err
			}
		}
		return nil
	}
	return run, []device.View{out, dst.View, cp, ew}
}

// loweredCases sit just below and above the lowered loop budget
// (LimitLoops/2 = 32 iterations: 8192 values per workgroup, 256 depths per
// tile, 32 window taps).
func loweredCases() []limitCase {
	var cs []limitCase
	for _, r := range []int{8192, 8193, 70000} {
		for _, o := range []int{1, 3, 100} {
			for _, op := range []device.ReduceOp{device.ReduceSum, device.ReduceMax, device.ReduceArgMin} {
				l := Contiguous
				if o == 3 {
					l = Reversed // the reduced axis leads in memory
				}
				cs = append(cs, limitCase{fmt.Sprintf("reduce %v o=%d r=%d %s", op, o, r, l), sumTol(r), reduceBuild(op, o, r, l, Normal)})
			}
		}
	}
	for _, r := range []int{32, 33} { // reduce_thread up to the budget
		cs = append(cs, limitCase{fmt.Sprintf("reduce sum o=2000 r=%d", r), sumTol(r), reduceBuild(device.ReduceSum, 2000, r, Contiguous, Normal)})
	}
	for _, k := range []int{256, 257, 1000} {
		cs = append(cs,
			limitCase{fmt.Sprintf("matmul K=%d", k), sumTol(k), matmulBuild(nil, 70, 3, k, Contiguous, Normal)},
			limitCase{fmt.Sprintf("matmul batch K=%d", k), sumTol(k), matmulBuild([]int{2, 3}, 5, 66, k, Reversed, Normal)})
	}
	// Depths: forward C*taps, backward input O*taps, backward weight N*out.
	for _, c := range []int{28, 29, 40} { // 252, 261, 360 with 3x3 taps
		g := convGeom(2, c, c, 1, []int{12, 12}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1})
		for _, m := range []device.ConvMode{device.ConvForward, device.ConvBackwardInput, device.ConvBackwardWeight} {
			cs = append(cs, limitCase{fmt.Sprintf("conv mode %d C=O=%d", m, c), sumTol(2000), convBuild(m, g, Reversed, Normal)})
		}
	}
	grouped := convGeom(1, 8, 4, 2, []int{520}, []int{3}, []int{2}, []int{1}, []int{2}) // backward weight depth 259
	for _, m := range []device.ConvMode{device.ConvForward, device.ConvBackwardInput, device.ConvBackwardWeight} {
		cs = append(cs, limitCase{fmt.Sprintf("conv grouped mode %d", m), sumTol(200), convBuild(m, grouped, Reversed, Normal)})
	}
	for _, op := range []device.PoolOp{device.PoolMax, device.PoolAvg} {
		cs = append(cs, limitCase{fmt.Sprintf("pool %v 2x2 window", op), Tol{Abs: 1e-6, Rel: 1e-6},
			poolBuild(op, false, convGeom(2, 2, 2, 2, []int{9, 9}, []int{2, 2}, []int{2, 2}, []int{1, 1}, []int{1, 1}), Reversed)})
	}
	cs = append(cs, limitCase{"pool max 3x3 window stride 2 (21 iterations)", Tol{Abs: 1e-6, Rel: 1e-6},
		poolBuild(device.PoolMax, false, convGeom(2, 2, 2, 2, []int{9, 9}, []int{3, 3}, []int{2, 2}, []int{1, 1}, []int{1, 1}), Reversed)})
	cs = append(cs, limitCase{"gather, scatter, copy, elementwise", Tol{Abs: 1e-5, Rel: 1e-5}, indexBuild})
	return cs
}

// testLoweredRefusals checks that kernels no plan brings under the lowered
// loop limit are refused with an error.
func testLoweredRefusals(t *testing.T, d device.Device) {
	rng := NewRand(t)
	for _, adaptive := range []bool{false, true} {
		g := convGeom(1, 1, 1, 1, []int{8, 8}, []int{8, 8}, []int{1, 1}, []int{0, 0}, []int{1, 1}) // 8+64 taps
		if adaptive {
			g = device.ConvGeometry{N: 1, C: 1, O: 1, Groups: 1, In: []int{12, 12}, Out: []int{1, 1}}
		}
		run, _ := poolBuild(device.PoolAvg, adaptive, g, Reversed)(t, d, rng)
		err := run()
		require.Error(t, err, "a window of %v taps", g.In)
		require.Contains(t, err.Error(), "loop iterations")
	}
}

// ones is a generator of ones.
func ones(device.DType) Gen { return func(*rand.Rand) float64 { return 1 } }

// counting is a generator of 0, 1, 2, ... (exact in float32 up to 2^24).
func counting(device.DType) Gen {
	i := -1.0
	return func(*rand.Rand) float64 { i++; return i }
}

// realCases are the reported failures at the devices' own limits: more
// than 65535 loop iterations of a workgroup (llvmpipe's limit) in a
// reduction, a product's depth and a convolution's depth.
func realCases() []limitCase {
	const big = 1 << 24 // 65536 iterations of a 256-wide loop
	return []limitCase{
		{"sum of 4096x4096 ones", Exact, reduceBuild(device.ReduceSum, 1, big, Contiguous, ones)},
		{"max of 0..2^24-1", Exact, reduceBuild(device.ReduceMax, 1, big, Contiguous, counting)},
		{"argmax of 0..2^24-1", Exact, reduceBuild(device.ReduceArgMax, 1, big, Contiguous, counting)},
		{"matmul [1,600000]x[600000,1] of ones", Exact, matmulBuild(nil, 1, 1, 600000, Contiguous, ones)},
		{"conv1d depth 600000 of ones", Exact, convBuild(device.ConvForward,
			convGeom(1, 600000, 1, 1, []int{1}, []int{1}, []int{1}, []int{0}, []int{1}), Reversed, ones)},
	}
}
