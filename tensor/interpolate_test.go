package tensor_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// Nearest source indices as PyTorch 1.13 computes them (in float32),
// including products that land just below an integer in float32.
func TestInterpolateNearestIndicesMatchTorch(t *testing.T) {
	dev := openCPU(t)
	arange := func(n int) *tensor.Tensor {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i)
		}
		return tensor.FromFloat32s(dev, v, 1, 1, n)
	}
	for _, c := range []struct {
		in   int
		opt  tensor.InterpolateOptions
		want []float32
	}{
		{14, tensor.InterpolateOptions{Size: []int{20}}, []float32{0, 0, 1, 2, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9, 9, 10, 11, 11, 12, 13}},
		{3, tensor.InterpolateOptions{Size: []int{9}}, []float32{0, 0, 0, 1, 1, 1, 2, 2, 2}},
		{10, tensor.InterpolateOptions{Size: []int{7}}, []float32{0, 1, 2, 4, 5, 7, 8}},
		{7, tensor.InterpolateOptions{Size: []int{10}}, []float32{0, 0, 1, 2, 2, 3, 4, 4, 5, 6}},
		{10, tensor.InterpolateOptions{Scale: []float64{0.7}}, []float32{0, 1, 2, 4, 5, 7, 8}},
	} {
		got, err := arange(c.in).Interpolate(c.opt).Float32s()
		require.NoError(t, err)
		require.Equal(t, c.want, got, "%d %+v", c.in, c.opt)
	}
}

func TestInterpolateMisuse(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Zeros(dev, 1, 2, 4, 4)
	for name, fn := range map[string]func(){
		"2-D input":              func() { tensor.Zeros(dev, 2, 3).Interpolate(tensor.InterpolateOptions{Size: []int{4}}) },
		"size and scale":         func() { x.Interpolate(tensor.InterpolateOptions{Size: []int{4}, Scale: []float64{2}}) },
		"neither size nor scale": func() { x.Interpolate(tensor.InterpolateOptions{}) },
		"nearest aligned":        func() { x.Interpolate(tensor.InterpolateOptions{Size: []int{8}, AlignCorners: true}) },
		"zero size":              func() { x.Interpolate(tensor.InterpolateOptions{Size: []int{0}}) },
		"negative scale":         func() { x.Interpolate(tensor.InterpolateOptions{Scale: []float64{-2}}) },
		"scale to nothing":       func() { x.Interpolate(tensor.InterpolateOptions{Scale: []float64{0.1}}) },
		"three sizes for 2 dims": func() { x.Interpolate(tensor.InterpolateOptions{Size: []int{2, 3, 4}}) },
		"unknown mode":           func() { x.Interpolate(tensor.InterpolateOptions{Size: []int{2}, Mode: 9}) },
		"size over the limit":    func() { x.Interpolate(tensor.InterpolateOptions{Size: []int{1 << 40}}) },
		"scale over the limit":   func() { x.Interpolate(tensor.InterpolateOptions{Scale: []float64{1e12}}) },
	} {
		t.Run(name, func(t *testing.T) { requireUsage(t, fn) })
	}
}
