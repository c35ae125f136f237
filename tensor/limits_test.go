package tensor_test

import (
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// requireUsage asserts that fn panics with a *tensor.UsageError.
func requireUsage(t *testing.T, fn func()) {
	t.Helper()
	err := tensor.Catch(fn)
	var ue *tensor.UsageError
	require.True(t, errors.As(err, &ue), "want a UsageError, got %v", err)
}

func TestShapesWhoseSizeOverflowsAreUsageErrors(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Zeros(dev, 4)
	for name, fn := range map[string]func(){
		"Zeros wraps to 4":      func() { tensor.Zeros(dev, (1<<62)+1, 4) },
		"Ones 2^80":             func() { tensor.Ones(dev, 1<<40, 1<<40) },
		"Rand":                  func() { tensor.Rand(dev, 1<<32, 1<<32) },
		"empty with huge dims":  func() { tensor.Zeros(dev, 0, 1<<40, 1<<40) },
		"Reshape wraps to 0":    func() { tensor.Zeros(dev, 0).Reshape(1<<32, 1<<32) },
		"Reshape wraps to 4":    func() { x.Reshape((1<<62)+1, 4) },
		"Reshape infer":         func() { x.Reshape(-1, 1<<62, 1<<62) },
		"Expand":                func() { x.Reshape(4, 1).Expand(4, 1<<40) },
		"broadcast":             func() { tensor.Zeros(dev, 1<<20, 1).Add(tensor.Zeros(dev, 1, 1<<20)) },
		"MatMul":                func() { tensor.Zeros(dev, 1<<20, 1).MatMul(tensor.Zeros(dev, 1, 1<<20)) },
		"Cat":                   func() { a := tensor.Zeros(dev, 1<<30, 1); tensor.Cat(0, a, a, a) },
		"Arange huge":           func() { tensor.Arange(dev, 0, 1e300, 1) },
		"Arange infinite":       func() { tensor.Arange(dev, 0, math.Inf(1), 1) },
		"FromFloat32s wraps":    func() { tensor.FromFloat32s(dev, []float32{1, 2, 3, 4}, (1<<62)+1, 4) },
		"Conv2d dilation wraps": func() { convOf(dev, tensor.ConvOptions{Dilation: []int{1 << 62, 1}}) },
		"Conv2d padding wraps":  func() { convOf(dev, tensor.ConvOptions{Padding: []int{1 << 62, 0}}) },
		"Conv2d groups wrap": func() {
			tensor.Zeros(dev, 1, 0, 3, 3).Conv2d(tensor.Zeros(dev, 0, 4, 1, 1), nil, tensor.ConvOptions{Groups: 1 << 62})
		},
		"MaxPool2d padding wraps": func() {
			tensor.Zeros(dev, 1, 1, 4, 4).MaxPool2d(tensor.PoolOptions{Kernel: []int{2}, Padding: []int{1 << 62}})
		},
	} {
		t.Run(name, func(t *testing.T) { requireUsage(t, fn) })
	}
}

// convOf convolves a small image with a 3×3 kernel under o.
func convOf(dev *tensor.Device, o tensor.ConvOptions) *tensor.Tensor {
	return tensor.Zeros(dev, 1, 1, 8, 8).Conv2d(tensor.Zeros(dev, 1, 1, 3, 3), nil, o)
}

func TestRepresentableButTooLargeIsAnOutOfMemoryError(t *testing.T) {
	t.Setenv("SHADERFLOW_CPU_MEMORY_LIMIT", "1048576")
	dev := openCPU(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := tensor.Ones(dev, 1<<28).AddScalar(1).Float32s() // 1 GiB
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	_, err = tensor.Ones(dev, 1<<14, 1<<14).Sum(1).Float32s()
	require.NoError(t, err, "a reduction of a broadcast constant needs only its result")
	_, err = tensor.Ones(dev, 1<<28).Bytes()
	require.ErrorIs(t, err, device.ErrOutOfMemory, "a broadcast constant is computed on the device before the host copy")
	runtime.ReadMemStats(&after)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "host memory was allocated before the device refused")
}
