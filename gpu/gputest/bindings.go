package gputest

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// LimitBindingBytes is the binding size RunBindingLimits lowers a device
// to: 1024 float32 elements, so that splits happen at sizes lavapipe runs
// in milliseconds.
const LimitBindingBytes = 4096

// RunBindingLimits runs kernels whose views span just below and above one
// storage-buffer binding, on d and on the CPU backend, and compares the
// results, with d's binding limit lowered to LimitBindingBytes by
// setBindingLimit (-1 restores the device's own), and then also its loop
// limit lowered to LimitLoops by setLoopLimit (products split over both
// their batch and their depth); kernels the planner does not split must
// fail with the binding error. With realSizes it also runs a 2^26-element
// float32 add (256 MiB per operand) at the device's own limit.
func RunBindingLimits(t *testing.T, d device.Device, setBindingLimit func(int64), setLoopLimit func(int), realSizes bool) {
	cpu := Open(t, "cpu")
	seed := NewRand(t).Uint64()
	t.Run("Lowered", func(t *testing.T) {
		setBindingLimit(LimitBindingBytes)
		defer setBindingLimit(-1)
		for _, c := range slices.Concat(bindingCases(), batchBindingCases(), indexBindingCases()) {
			t.Run(c.name, func(t *testing.T) { compareCase(t, d, cpu, seed, c) })
		}
		testBindingRefusals(t, d)
		t.Run("Softmax", func(t *testing.T) { testSoftmaxBindings(t, d) })
		t.Run("SoftmaxGrad", func(t *testing.T) { testSoftmaxGradBindings(t, d) })
		t.Run("Normalize", func(t *testing.T) { testNormalizeBindings(t, d) })
	})
	t.Run("LoweredWithLoops", func(t *testing.T) {
		setBindingLimit(LimitBindingBytes)
		defer setBindingLimit(-1)
		setLoopLimit(LimitLoops)
		defer setLoopLimit(-1)
		for _, c := range loopBindingCases() {
			t.Run(c.name, func(t *testing.T) { compareCase(t, d, cpu, seed, c) })
		}
	})
	if realSizes {
		t.Run("Real", func(t *testing.T) { testBigAdd(t, d) })
	}
}

// ewBuild builds an elementwise program over shape whose inputs have the
// given layouts (float32) and whose outputs have the given dtypes.
func ewBuild(shape []int, layouts []Layout, outs []device.DType, prog func(*device.Builder)) func(*testing.T, device.Device, *rand.Rand) (func() error, []device.View) {
	return func(t *testing.T, d device.Device, rng *rand.Rand) (func() error, []device.View) {
		k := &device.ElementwiseKernel{Shape: shape}
		for _, l := range layouts {
			k.Inputs = append(k.Inputs, Make(t, d, rng, device.Float32, shape, l, Normal(device.Float32)).View)
		}
		var b device.Builder
		prog(&b)
		k.Program = b.P
		for i, dt := range outs {
			k.Outputs = append(k.Outputs, Output(t, d, dt, i+1, shape))
		}
		return func() error { return d.Elementwise(k) }, k.Outputs
	}
}

// addInputs outputs the sum of the first two float32 inputs.
func addInputs(b *device.Builder) {
	f32 := device.Float32
	b.Output(b.Binary(device.OpAdd, b.Input(0, f32), b.Input(1, f32)))
}

// bindingCases sit just below and above the lowered binding size.
func bindingCases() []limitCase {
	f32, f16, i32 := device.Float32, device.Float16, device.Int32
	approx := Tol{Abs: 1e-6, Rel: 1e-6}
	return []limitCase{
		{"add [1000] below", Exact, ewBuild([]int{1000}, []Layout{Contiguous, Offset}, []device.DType{f32}, addInputs)},
		{"add [5000] above", Exact, ewBuild([]int{5000}, []Layout{Offset, Strided}, []device.DType{f32}, addInputs)},
		{"broadcast add [40,100]", Exact, ewBuild([]int{40, 100}, []Layout{Contiguous, Broadcast}, []device.DType{f32}, addInputs)},
		{"transposed add [90,70]", Exact, ewBuild([]int{90, 70}, []Layout{Reversed, Strided}, []device.DType{f32}, addInputs)},
		{"rows over the limit [3,2500] to f16", Tol{Abs: 1e-2, Rel: 1e-3}, ewBuild([]int{3, 2500}, []Layout{Contiguous, Reversed}, []device.DType{f16}, func(b *device.Builder) {
			b.Output(b.Cast(b.Binary(device.OpAdd, b.Input(0, f32), b.Input(1, f32)), f16))
		})},
		{"random, index and three outputs [60,80]", approx, ewBuild([]int{60, 80}, []Layout{Reversed}, []device.DType{f32, i32, f32}, func(b *device.Builder) {
			b.Output(b.Binary(device.OpAdd, b.Input(0, f32), b.Rand(7, false)))
			b.Output(b.Index())
			b.Output(b.Rand(9, true))
		})},
		{"in place [3000]", Exact, inPlaceBuild},
		{"copy transposed [70,90]", Exact, copyBuild},
		{"sum rows [300,50]", sumTol(50), reduceBuild(device.ReduceSum, 300, 50, Offset, Normal)},
		{"argmax rows [300,50]", Exact, reduceBuild(device.ReduceArgMax, 300, 50, Strided, Normal)},
		{"sum rows [20,1000] below", sumTol(1000), reduceBuild(device.ReduceSum, 20, 1000, Contiguous, Normal)},
	}
}

// inPlaceBuild doubles a view in place (input and output share a buffer).
func inPlaceBuild(t *testing.T, d device.Device, rng *rand.Rand) (func() error, []device.View) {
	f32 := device.Float32
	x := Make(t, d, rng, f32, []int{3000}, Offset, Normal(f32))
	var b device.Builder
	b.Output(b.Binary(device.OpAdd, b.Input(0, f32), b.Input(0, f32)))
	k := &device.ElementwiseKernel{Shape: []int{3000}, Inputs: []device.View{x.View}, Program: b.P, Outputs: []device.View{x.View}}
	return func() error { return d.Elementwise(k) }, k.Outputs
}

// copyBuild copies a transposed view into a contiguous one.
func copyBuild(t *testing.T, d device.Device, rng *rand.Rand) (func() error, []device.View) {
	f32 := device.Float32
	src := Make(t, d, rng, f32, []int{70, 90}, Reversed, Normal(f32))
	k := &device.CopyKernel{Dst: Output(t, d, f32, 1, []int{70, 90}), Src: src.View}
	return func() error { return d.Copy(k) }, []device.View{k.Dst}
}

// testBindingRefusals checks that kernels the planner cannot split under
// the lowered binding size fail with the binding error: a reduction whose
// single output reads more than one binding, and the batch-split kernels
// whose smallest slab does (batchBindingRefusals).
func testBindingRefusals(t *testing.T, d device.Device) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range append([]limitCase{
		{"sum of one row of 2000", Exact, reduceBuild(device.ReduceSum, 1, 2000, Contiguous, Normal)},
		{"sum of transposed rows [300,50]", Exact, reduceBuild(device.ReduceSum, 300, 50, Reversed, Normal)},
	}, batchBindingRefusals()...) {
		run, _ := c.build(t, d, rng)
		err := run()
		if err == nil {
			err = d.Sync()
		}
		require.Error(t, err, c.name)
		assert.Contains(t, err.Error(), "more than the device binds at once", c.name)
	}
}

// testBigAdd adds two 2^26-element float32 vectors (256 MiB each) whose
// sums are exact, and checks every element.
func testBigAdd(t *testing.T, d device.Device) {
	const n = 1 << 26
	f32 := device.Float32
	raw := make([]byte, 4*n)
	fill := func(f func(i int) float32) device.Buffer {
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f(i)))
		}
		b, err := d.Alloc(4 * n)
		require.NoError(t, err)
		t.Cleanup(func() { d.Free(b) })
		require.NoError(t, d.Write(b, 0, raw))
		return b
	}
	x := fill(func(i int) float32 { return float32(i % 4096) })
	y := fill(func(i int) float32 { return float32(i/4096) * 4096 })
	out, err := d.Alloc(4 * n)
	require.NoError(t, err)
	defer d.Free(out)
	var b device.Builder
	addInputs(&b)
	shape := []int{n}
	require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: shape, Program: b.P,
		Inputs:  []device.View{device.Contiguous(x, f32, 0, shape), device.Contiguous(y, f32, 0, shape)},
		Outputs: []device.View{device.Contiguous(out, f32, 0, shape)}}))
	require.NoError(t, d.Read(out, 0, raw))
	for i := 0; i < n; i++ {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])); got != float32(i) {
			require.Equal(t, float32(i), got, "element %d", i)
		}
	}
}
