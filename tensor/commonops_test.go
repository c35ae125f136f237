package tensor_test

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// Edge cases of the issue-15 ops (shapeops.go, pad.go, scan.go,
// reduce_more.go, sort.go, scatter.go, einsum.go), each value as PyTorch
// 1.13 gives it; the conformance groups shapeops, scans, sort and scatter
// check them on random inputs.

func readF32(t *testing.T, x *tensor.Tensor) []float32 {
	t.Helper()
	v, err := x.Float32s()
	require.NoError(t, err)
	return v
}

func readI32(t *testing.T, x *tensor.Tensor) []int32 {
	t.Helper()
	v, err := x.Int32s()
	require.NoError(t, err)
	return v
}

func TestFlipIsANegativeStrideView(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Arange(dev, 0, 6, 1).Reshape(2, 3)
	y := x.Flip(1)
	require.Equal(t, []int{3, -1}, y.Strides())
	require.Equal(t, []float32{2, 1, 0, 5, 4, 3}, readF32(t, y))
	require.Equal(t, readF32(t, x), readF32(t, x.Flip()), "torch.flip with no dims flips nothing")
}

// TestPadThatOnlyCropsIsAView checks that negative constant pads alone
// narrow the tensor without copying it.
func TestPadThatOnlyCropsIsAView(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Arange(dev, 0, 12, 1).Reshape(3, 4)
	y := x.Pad([]int{-1, -2, 0, -1}, tensor.PadConstant, 7)
	require.Equal(t, []int{2, 1}, y.Shape())
	require.Equal(t, []int{4, 1}, y.Strides(), "the strides of x: a view")
	require.Equal(t, []float32{1, 5}, readF32(t, y))
}

func TestChunkOfAnEmptyDimensionGivesNPieces(t *testing.T) {
	dev := openCPU(t)
	ps := tensor.Zeros(dev, 0, 2).Chunk(3, 0)
	require.Len(t, ps, 3)
	for _, p := range ps {
		require.Equal(t, []int{0, 2}, p.Shape())
	}
	require.Len(t, tensor.Zeros(dev, 6, 2).Chunk(4, 0), 3) // pieces of 2, as torch.chunk
}

func TestNormGradientAtZeroIsZero(t *testing.T) {
	dev := openCPU(t)
	for _, p := range []float64{2, 3, 1.5} {
		x := tensor.Zeros(dev, 3).Add(tensor.Zeros(dev, 3))
		x.SetRequiresGrad(true)
		require.NoError(t, x.Norm(p).Backward())
		require.Equal(t, []float32{0, 0, 0}, readF32(t, x.Grad()), "p=%g", p)
	}
}

func TestLogSumExpOfInfinities(t *testing.T) {
	dev := openCPU(t)
	inf := float32(math.Inf(1))
	require.Equal(t, []float32{-inf}, readF32(t, tensor.FromFloat32s(dev, []float32{-inf, -inf, -inf}, 3).LogSumExp().Reshape(1)))
	require.Equal(t, []float32{inf}, readF32(t, tensor.FromFloat32s(dev, []float32{inf, 1}, 2).LogSumExp().Reshape(1)))
	require.Equal(t, []float32{-inf, -inf}, readF32(t, tensor.Zeros(dev, 0, 2).LogSumExp(0)))
}

func TestAnyAllOverNoElements(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Zeros(dev, 0, 3)
	a, err := x.Any(0).Bools()
	require.NoError(t, err)
	require.Equal(t, []bool{false, false, false}, a)
	b, err := x.All(0).Bools()
	require.NoError(t, err)
	require.Equal(t, []bool{true, true, true}, b)
	n, err := tensor.FromFloat32s(dev, []float32{0, float32(math.NaN())}, 2).Any().Bools()
	require.NoError(t, err)
	require.Equal(t, []bool{true}, n, "NaN is nonzero")
}

func TestMaxDimAndMedianPickNaN(t *testing.T) {
	dev := openCPU(t)
	nan := float32(math.NaN())
	x := tensor.FromFloat32s(dev, []float32{3, nan, 1, nan, 2}, 5)
	v, i := x.MaxDim(0, false)
	require.True(t, math.IsNaN(float64(readF32(t, v.Reshape(1))[0])))
	require.Equal(t, []int32{1}, readI32(t, i.Reshape(1)))
	v, i = x.Median(0, false)
	require.True(t, math.IsNaN(float64(readF32(t, v.Reshape(1))[0])))
	require.Equal(t, []int32{1}, readI32(t, i.Reshape(1)))
	_, i = tensor.FromFloat32s(dev, []float32{2, 1, 2, 2}, 1, 4).Median(1, true)
	require.Equal(t, []int32{0}, readI32(t, i))
	_, i = tensor.FromFloat32s(dev, []float32{1, 3, 3}, 3).MaxDim(0, false)
	require.Equal(t, []int32{1}, readI32(t, i.Reshape(1)), "the first of ties")
}

func TestComposedOpsOverAnEmptyAxis(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Zeros(dev, 2, 0)
	v, i := x.Sort(1, false)
	require.Equal(t, []int{2, 0}, v.Shape())
	require.Equal(t, []int{2, 0}, i.Shape())
	require.Empty(t, readF32(t, v))
	require.Equal(t, []float32{0, 0}, readF32(t, x.Norm(2, 1)))
	require.Equal(t, []float32{0, 0}, readF32(t, x.Norm(0, 1)))
	require.Equal(t, []int{2, 0}, x.Cumprod(1).Shape())
	requireUsage(t, func() { x.MaxDim(1, false) })
}

func TestMaskedSelectWithNothingSelected(t *testing.T) {
	dev := openCPU(t)
	y, err := tensor.Ones(dev, 2, 3).MaskedSelect(tensor.FromBools(dev, []bool{false, false, false}, 3))
	require.NoError(t, err)
	require.Equal(t, []int{0}, y.Shape())
}

func TestCommonOpsMisuseIsAUsageError(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Zeros(dev, 3, 4)
	idx := tensor.FromInt32s(dev, []int32{0, 1}, 2)
	for name, fn := range map[string]func(){
		"Flip axis":         func() { x.Flip(2) },
		"Roll lengths":      func() { x.Roll([]int{1, 2}, 0) },
		"Roll flat shifts":  func() { x.Roll([]int{1, 2}) },
		"Repeat too few":    func() { x.Repeat(2) },
		"Repeat negative":   func() { x.Repeat(2, -1) },
		"Split size":        func() { x.Split(0, 1) },
		"SplitSizes sum":    func() { x.SplitSizes([]int{1, 2}, 1) },
		"Chunk count":       func() { x.Chunk(0, 1) },
		"Select index":      func() { x.Select(0, 3) },
		"Pad odd":           func() { x.Pad([]int{1}, tensor.PadConstant, 0) },
		"Pad rank":          func() { x.Pad([]int{1, 1, 1, 1, 1, 1}, tensor.PadConstant, 0) },
		"Pad reflect":       func() { x.Pad([]int{4, 0}, tensor.PadReflect, 0) },
		"Pad crop":          func() { x.Pad([]int{-3, -2}, tensor.PadConstant, 0) },
		"Pad replicate":     func() { tensor.Zeros(dev, 3, 0).Pad([]int{1, 0}, tensor.PadReplicate, 0) },
		"Tril rank":         func() { tensor.Zeros(dev, 3).Tril(0) },
		"MaskedFill dtype":  func() { x.MaskedFill(x, 1) },
		"MaskedFill shape":  func() { tensor.Zeros(dev, 4).MaskedFill(tensor.FromBools(dev, []bool{true, false}, 2, 1), 1) },
		"Outer rank":        func() { x.Outer(x) },
		"Cumsum axis":       func() { x.Cumsum(2) },
		"Norm NaN":          func() { x.Norm(math.NaN()) },
		"Norm inf empty":    func() { tensor.Zeros(dev, 0).Norm(math.Inf(1)) },
		"TopK k":            func() { x.TopK(5, 1, true) },
		"Median empty":      func() { tensor.Zeros(dev, 2, 0).Median(1, false) },
		"Scatter dtype":     func() { _, _ = x.Scatter(1, idx.Reshape(1, 2), x.Cast(tensor.Int32)) },
		"Scatter rank":      func() { _, _ = x.Scatter(1, idx, x) },
		"IndexAdd int":      func() { x.Cast(tensor.Int32).IndexAdd(0, idx, x.Narrow(0, 0, 2).Cast(tensor.Int32)) },
		"IndexAdd shape":    func() { x.IndexAdd(0, idx, x) },
		"MaskedSelect mask": func() { _, _ = x.MaskedSelect(x) },
		"Einsum operands":   func() { tensor.Einsum("ij,jk->ik", x) },
		"Einsum sizes":      func() { tensor.Einsum("ij,ij->i", x, tensor.Zeros(dev, 3, 5)) },
		"Einsum letter":     func() { tensor.Einsum("i2->i", x) },
		"Einsum diagonal":   func() { tensor.Einsum("ii->", tensor.Zeros(dev, 3, 4)) },
		"Diagonal dims":     func() { x.Diagonal(0, 1, -1) },
		"Einsum ellipsis":   func() { tensor.Einsum("...ijk->k", x) },
		"Einsum output":     func() { tensor.Einsum("ij->k", x) },
	} {
		t.Run(name, func(t *testing.T) { requireUsage(t, fn) })
	}
}

// TestComposedShapeOpsFuse pins that the elementwise compositions run as one
// kernel each: a flipped operand is read through negative strides, and the
// masks of Tril and MaskedFill and the broadcast of Outer are computed in
// the kernel (Tril's and Triu's from a column of row numbers and a row of
// column numbers, two small kernels before it).
func TestComposedShapeOpsFuse(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Randn(dev, 5, 6)
	m := tensor.Randn(dev, 6).GtScalar(0)
	a, b := tensor.Randn(dev, 5), tensor.Randn(dev, 6)
	require.NoError(t, tensor.Realize(x, m, a, b))
	kernels := map[string]int{"Tril": 3, "Triu": 3}
	for name, build := range map[string]func() *tensor.Tensor{
		"Flip":       func() *tensor.Tensor { return x.Flip(0, 1).Add(x) },
		"Tril":       func() *tensor.Tensor { return x.Tril(-1) },
		"Triu":       func() *tensor.Tensor { return x.Triu(2) },
		"MaskedFill": func() *tensor.Tensor { return x.MaskedFill(m, 0.5) },
		"Outer":      func() *tensor.Tensor { return a.Outer(b) },
	} {
		dev.ResetFusionStats()
		require.NoError(t, build().Realize())
		require.Equal(t, max(kernels[name], 1), dev.FusionStats().Kernels, name)
	}
}
