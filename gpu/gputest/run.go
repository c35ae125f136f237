package gputest

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// RunKernels runs the kernel tests of every kind on d.
func RunKernels(t *testing.T, d device.Device) {
	for _, c := range []struct {
		name string
		f    func(*testing.T, device.Device)
	}{
		{"ElementwiseOps", testElementwiseOps},
		{"ElementwiseDTypes", testElementwiseDTypes},
		{"ElementwiseLarge", testElementwiseLarge},
		{"Reduce", testReduce},
		{"MatMul", testMatMul},
		{"Conv", testConv},
		{"Pool", testPool},
		{"Gather", testGather},
		{"Scatter", testScatter},
		{"IndexErrors", testIndexErrors},
		{"Copy", testCopy},
	} {
		t.Run(c.name, func(t *testing.T) { c.f(t, d) })
	}
}

// RunElementwise runs the elementwise kernel tests alone, for a backend
// whose other kinds do not exist yet.
func RunElementwise(t *testing.T, d device.Device) {
	t.Run("ElementwiseOps", func(t *testing.T) { testElementwiseOps(t, d) })
	t.Run("ElementwiseDTypes", func(t *testing.T) { testElementwiseDTypes(t, d) })
	t.Run("ElementwiseLarge", func(t *testing.T) { testElementwiseLarge(t, d) })
}

// RunReduce runs the reduction kernel tests alone, for a backend whose
// other kinds do not exist yet.
func RunReduce(t *testing.T, d device.Device) {
	t.Run("Reduce", func(t *testing.T) { testReduce(t, d) })
}

// RunConv runs the convolution kernel tests alone, for a backend whose
// other kinds do not exist yet.
func RunConv(t *testing.T, d device.Device) {
	t.Run("Conv", func(t *testing.T) { testConv(t, d) })
}

// RunPool runs the pooling kernel tests alone, for a backend whose other
// kinds do not exist yet.
func RunPool(t *testing.T, d device.Device) {
	t.Run("Pool", func(t *testing.T) { testPool(t, d) })
}

// RunGather runs the gather kernel tests alone, for a backend whose other
// kinds do not exist yet.
func RunGather(t *testing.T, d device.Device) {
	t.Run("Gather", func(t *testing.T) { testGather(t, d) })
}

// RunScatter runs the scatter kernel tests alone, for a backend whose other
// kinds do not exist yet.
func RunScatter(t *testing.T, d device.Device) {
	t.Run("Scatter", func(t *testing.T) { testScatter(t, d) })
}

// RunIndexErrors runs the out-of-range index tests of gather and scatter
// alone, for a backend whose other kinds do not exist yet.
func RunIndexErrors(t *testing.T, d device.Device) {
	t.Run("IndexErrors", func(t *testing.T) { testIndexErrors(t, d) })
}

// RunMatMul runs the matrix product kernel tests alone, for a backend whose
// other kinds do not exist yet.
func RunMatMul(t *testing.T, d device.Device) {
	t.Run("MatMul", func(t *testing.T) { testMatMul(t, d) })
}
