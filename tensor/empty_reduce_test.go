package tensor_test

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// values realizes x and returns its shape and elements.
func values(t *testing.T, x *tensor.Tensor) ([]int, []float32) {
	t.Helper()
	v, err := x.Float32s()
	require.NoError(t, err)
	return append([]int{}, x.Shape()...), v
}

// TestReductionsOverEmptyAxesFollowPyTorch checks every reduction of a
// [3, 0] tensor against PyTorch 1.13: sum 0, prod 1, mean and var NaN,
// softmax empty, and an error for max, min and their arg forms.
func TestReductionsOverEmptyAxesFollowPyTorch(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Zeros(dev, 3, 0)
	nan := float32(math.NaN())
	for name, c := range map[string]struct {
		y     *tensor.Tensor
		shape []int
		want  []float32
	}{
		"Sum":          {x.Sum(1), []int{3}, []float32{0, 0, 0}},
		"Sum all":      {x.Sum(), []int{}, []float32{0}},
		"Prod":         {x.Prod(1), []int{3}, []float32{1, 1, 1}},
		"Mean":         {x.Mean(1), []int{3}, []float32{nan, nan, nan}},
		"Mean all":     {x.Mean(), []int{}, []float32{nan}},
		"Var":          {x.Var(1, 1), []int{3}, []float32{nan, nan, nan}},
		"Var pop":      {x.Var(0, 1), []int{3}, []float32{nan, nan, nan}},
		"VarKeepDim":   {x.VarKeepDim(1, 1), []int{3, 1}, []float32{nan, nan, nan}},
		"Softmax":      {x.Softmax(1), []int{3, 0}, []float32{}},
		"LogSoftmax":   {x.LogSoftmax(1), []int{3, 0}, []float32{}},
		"Softmax 0":    {x.Softmax(0), []int{3, 0}, []float32{}},
		"Max nonempty": {x.Max(0), []int{0}, []float32{}},
		"ArgMax 0":     {x.ArgMax(0), []int{0}, []float32{}},
	} {
		t.Run(name, func(t *testing.T) {
			shape, got := values(t, c.y)
			require.Equal(t, c.shape, shape)
			require.Len(t, got, len(c.want))
			for i := range got {
				if math.IsNaN(float64(c.want[i])) {
					require.True(t, math.IsNaN(float64(got[i])), "element %d: %v", i, got[i])
				} else {
					require.Equal(t, c.want[i], got[i])
				}
			}
		})
	}
	for name, fn := range map[string]func(){
		"Max":     func() { x.Max(1) },
		"Min":     func() { x.MinKeepDim(1) },
		"ArgMax":  func() { x.ArgMax(1) },
		"ArgMin":  func() { x.ArgMin(1) },
		"Max all": func() { x.Max() },
	} {
		t.Run(name, func(t *testing.T) { requireUsage(t, fn) })
	}
}

// TestVarWithCorrectionAboveCount divides by max(0, n-correction) as
// PyTorch 1.13 does: [1, 2, 4] with correction 3 or 4 is +Inf, never a
// negative variance.
func TestVarWithCorrectionAboveCount(t *testing.T) {
	dev := openCPU(t)
	x := tensor.FromFloat32s(dev, []float32{1, 2, 4})
	for _, c := range []int{3, 4} {
		_, got := values(t, x.Var(c))
		require.Equal(t, []float32{float32(math.Inf(1))}, got, "correction %d", c)
	}
	_, got := values(t, tensor.Ones(dev, 1).Var(2))
	require.True(t, math.IsNaN(float64(got[0])), "0/0 is NaN, got %v", got)
}

// TestNormOverEmptyShapes follows PyTorch: layer_norm over a normalized
// shape holding no element, or of a batch of none, and group_norm of no
// channels return empty results of the input's shape.
func TestNormOverEmptyShapes(t *testing.T) {
	dev := openCPU(t)
	for _, c := range []struct {
		shape []int
		norm  func(x *tensor.Tensor) *tensor.Tensor
	}{
		{[]int{3, 0}, func(x *tensor.Tensor) *tensor.Tensor { return x.LayerNorm(1, nil, nil, 1e-5) }},
		{[]int{0, 4}, func(x *tensor.Tensor) *tensor.Tensor { return x.LayerNorm(1, nil, nil, 1e-5) }},
		{[]int{2, 0, 3}, func(x *tensor.Tensor) *tensor.Tensor { return x.GroupNorm(1, nil, nil, 1e-5) }},
	} {
		y := c.norm(tensor.Zeros(dev, c.shape...))
		require.Equal(t, c.shape, y.Shape())
		v, err := y.Float32s()
		require.NoError(t, err)
		require.Empty(t, v)
	}
}
