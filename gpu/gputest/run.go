package gputest

import (
	"strings"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// kernelTests are the shared kernel tests, one subtest each, by name.
var kernelTests = []struct {
	name string
	f    func(*testing.T, device.Device)
}{
	{"ElementwiseOps", testElementwiseOps},
	{"ElementwiseDTypes", testElementwiseDTypes},
	{"ElementwiseBytes", testElementwiseBytes},
	{"ElementwiseLarge", testElementwiseLarge},
	{"Reduce", testReduce},
	{"MatMul", testMatMul},
	{"Conv", testConv},
	{"Pool", testPool},
	{"Gather", testGather},
	{"Scatter", testScatter},
	{"IndexErrors", testIndexErrors},
	{"Copy", testCopy},
	{"Softmax", testSoftmax},
	{"SoftmaxGrad", testSoftmaxGrad},
	{"Normalize", testNormalize},
}

// RunKernels runs the kernel tests of every kind on d.
func RunKernels(t *testing.T, d device.Device) { RunKinds(t, d) }

// RunKinds runs the kernel tests whose names start with one of kinds
// ("Elementwise", "Reduce", "MatMul", "Conv", "Pool", "Gather", "Scatter",
// "IndexErrors", "Copy", "Softmax", "SoftmaxGrad", "Normalize"), or every test when kinds is empty: for a test of
// one kind's kernels alone.
func RunKinds(t *testing.T, d device.Device, kinds ...string) {
	for _, c := range kernelTests {
		if len(kinds) > 0 && !hasAnyPrefix(c.name, kinds) {
			continue
		}
		t.Run(c.name, func(t *testing.T) { c.f(t, d) })
	}
}

// hasAnyPrefix reports whether s starts with one of prefixes.
func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
