package tensor_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// Programmer errors in the neural-network functionals are usage panics.
func TestNNFunctionalMisuse(t *testing.T) {
	dev := openCPU(t)
	x1 := tensor.Zeros(dev, 2, 3, 5)
	x2 := tensor.Zeros(dev, 2, 3, 4, 4)
	w1 := tensor.Zeros(dev, 3, 2, 3)
	idx := tensor.FromInt32s(dev, []int32{0, 1})
	for name, fn := range map[string]func(){
		"MaxPool1d of 4-D":       func() { x2.MaxPool1d(tensor.PoolOptions{Kernel: []int{2}}) },
		"AvgPool3d of 4-D":       func() { x2.AvgPool3d(tensor.PoolOptions{Kernel: []int{2}}) },
		"pool padding over half": func() { x1.MaxPool1d(tensor.PoolOptions{Kernel: []int{2}, Padding: []int{2}, CeilMode: true}) },
		"ConvTranspose1d output pad": func() {
			x1.ConvTranspose1d(w1, nil, tensor.ConvTransposeOptions{Stride: []int{2}, OutputPadding: []int{2}})
		},
		"ConvTranspose1d channels":  func() { x1.ConvTranspose1d(tensor.Zeros(dev, 4, 2, 3), nil, tensor.ConvTransposeOptions{}) },
		"ConvTranspose1d groups":    func() { x1.ConvTranspose1d(w1, nil, tensor.ConvTransposeOptions{Groups: 2}) },
		"ConvTranspose1d bias":      func() { x1.ConvTranspose1d(w1, tensor.Zeros(dev, 3), tensor.ConvTransposeOptions{}) },
		"ConvTranspose1d no output": func() { x1.ConvTranspose1d(w1, nil, tensor.ConvTransposeOptions{Padding: []int{9}}) },
		"ConvTranspose2d of 3-D":    func() { x1.ConvTranspose2d(w1, nil, tensor.ConvTransposeOptions{}) },
		"InstanceNorm of 2-D":       func() { tensor.Zeros(dev, 2, 3).InstanceNorm(nil, nil, 1e-5) },
		"InstanceNorm one position": func() { tensor.Zeros(dev, 2, 3, 1).InstanceNorm(nil, nil, 1e-5) },
		"InstanceNorm weight shape": func() { x1.InstanceNorm(tensor.Ones(dev, 2), nil, 1e-5) },
		"ConvTranspose1d overflow": func() {
			x1.ConvTranspose1d(w1, nil, tensor.ConvTransposeOptions{Stride: []int{1 << 62}})
		},
		"OneHot of Float32":          func() { x1.OneHot(3) },
		"OneHot without class count": func() { idx.OneHot(-1) },
	} {
		t.Run(name, func(t *testing.T) { requireUsage(t, fn) })
	}
}

// A stride past the input leaves one ceil-mode window, computed without
// overflowing.
func TestCeilModeHugeStride(t *testing.T) {
	x := tensor.Zeros(openCPU(t), 2, 3, 5)
	y := x.MaxPool1d(tensor.PoolOptions{Kernel: []int{2}, Stride: []int{1<<63 - 1}, CeilMode: true})
	require.Equal(t, []int{2, 3, 1}, y.Shape())
}
